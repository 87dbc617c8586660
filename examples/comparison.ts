/**
 * One prompt, several models side by side; credits for all of them are reserved at once
 * (or nothing is, with InsufficientCreditsError).
 *
 *   MMGEN_API_KEY=sk_test_… npm run example examples/comparison.ts
 */
import Mmgen, { InsufficientCreditsError } from '@mmgen/sdk';

const mmgen = new Mmgen();
const models = (process.env.MODELS ?? 'flux-schnell,recraft-v3,ideogram-v3-turbo').split(',');

try {
  const comparison = await mmgen.comparisons.create({ models, prompt: 'a red fox in the snow', params: { width: 512, height: 512 } });
  console.log(`${comparison.id}: ${models.length} models, ${comparison.reserved_credits} credits reserved`);
  // Follows each model's event stream; resolves when every one has finished.
  const done = await mmgen.comparisons.wait(comparison, { onChildDone: (c) => console.log(`  ${c.model} ${c.status}`) });
  for (const g of done.generations) console.log(`${g.model.padEnd(16)} ${g.status.padEnd(10)} ${String(g.charged_credits).padStart(4)} credits  ${g.outputs[0]?.url ?? g.error?.message}`);
} catch (err) {
  if (err instanceof InsufficientCreditsError) {
    console.error(`The wallet cannot cover all ${models.length} models; nothing was charged.`);
    process.exit(1);
  }
  throw err;
}
