/**
 * Upload a local image and upscale it 4× (asynchronous; waited on over server-sent events).
 *
 *   MMGEN_API_KEY=sk_test_… npm run example examples/upscale-upload.ts photo.png [out.jpg]
 */
import { readFile, writeFile } from 'node:fs/promises';
import Mmgen from '@mmgen/sdk';

const [input, out = 'upscaled.jpg'] = process.argv.slice(2);
if (!input) throw new Error('usage: upscale-upload.ts <image.png|jpg|webp> [out.jpg]');
const mmgen = new Mmgen();

// POST /v1/uploads, then PUT the bytes to its presigned URL; the type is read from the bytes.
const upload = await mmgen.uploads.upload(await readFile(input));
console.log(`uploaded ${input} as ${upload.id} (${upload.width}×${upload.height})`);

const queued = await mmgen.upscale.create({ model: 'real-esrgan', upload_id: upload.id, scale: 4 });
const done = await mmgen.generations.wait(queued, { onUpdate: (g) => console.log(`  ${g.id} ${g.status}`) });
if (done.status !== 'succeeded') throw new Error(`${done.id} ${done.status}: ${done.error?.message}`);
const output = done.outputs[0]!;
await writeFile(out, Buffer.from(await (await fetch(output.url)).arrayBuffer()));
console.log(`${output.width}×${output.height} saved to ${out}`);
