/**
 * Generate an image and save it.
 *
 *   MMGEN_API_KEY=sk_test_… npm run example examples/image.ts [out.png]
 */
import { writeFile } from 'node:fs/promises';
import Mmgen, { APIError } from '@mmgen/sdk';

const out = process.argv[2] ?? 'lighthouse.png';
const mmgen = new Mmgen(); // MMGEN_API_KEY, and MMGEN_BASE_URL (default http://localhost:8080)

try {
  // Images are synchronous: the answer is the finished generation. The SDK sends an
  // Idempotency-Key with it, so its automatic retries can never charge twice.
  const image = await mmgen.images.create({ model: 'flux-schnell', prompt: 'a lighthouse at dawn, oil painting', width: 512, height: 512, seed: 42 });
  const output = image.outputs[0]!;
  // Output URLs are signed and expire (1 hour); GET the generation again for fresh ones.
  const file = await fetch(output.url);
  await writeFile(out, Buffer.from(await file.arrayBuffer()));
  console.log(`${image.id}: ${output.width}×${output.height} ${output.mime} saved to ${out}; charged ${image.charged_credits} credits`);
} catch (err) {
  if (err instanceof APIError) {
    // Typed by status (BadRequestError, InsufficientCreditsError, …), with mmgen's code and request id.
    console.error(`mmgen refused: ${err.status} ${err.code} ${err.message} (request ${err.requestId})`);
    process.exit(1);
  }
  throw err;
}
