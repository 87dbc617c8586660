/**
 * An asynchronous video, announced by a webhook whose signature the receiver verifies.
 *
 *   MMGEN_API_KEY=sk_test_… npm run example examples/video-webhook.ts
 *
 * The receiver listens on PORT (default: any free port) and mmgen must be able to reach
 * it at WEBHOOK_URL (default http://127.0.0.1:PORT/webhooks; loopback addresses need a
 * test key and an mmgen started with MMGEN_ALLOW_PRIVATE_NETWORK=1).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Mmgen, { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@mmgen/sdk';

const mmgen = new Mmgen();
const seen = new Set<string>(); // deliveries can repeat: deduplicate on the event id
let onEvent: (event: WebhookEvent) => void = () => {};
let secret = '';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    try {
      // The raw bytes, before any JSON parsing: that is what was signed.
      const event = await verifyWebhook(Buffer.concat(chunks), req.headers['x-service-signature'], secret);
      res.writeHead(200).end(); // answer fast, work afterwards
      if (seen.has(event.id)) return;
      seen.add(event.id);
      onEvent(event);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      console.error(`refused a delivery: ${err.reason}`);
      res.writeHead(400).end();
    }
  });
});
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const url = process.env.WEBHOOK_URL ?? `http://127.0.0.1:${port}/webhooks`;

const webhook = await mmgen.webhooks.create({ url, events: ['generation.completed', 'generation.failed'] });
secret = webhook.secret; // returned only now: keep it with the receiver
console.log(`webhook ${webhook.id} → ${url}`);

try {
  const video = await mmgen.videos.create({ model: 'kling-v2.1-master', prompt: 'waves rolling onto a beach at night', duration_s: 5 });
  console.log(`${video.id} accepted (${video.status}); waiting for its webhook…`);
  const event = await new Promise<WebhookEvent>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no webhook within 60 s')), 60_000);
    onEvent = (e) => {
      if ((e.type === 'generation.completed' || e.type === 'generation.failed') && e.data.generation_id === video.id) {
        clearTimeout(timer);
        resolve(e);
      }
    };
  });
  console.log(`verified ${event.type} ${event.id}`);
  if (event.type === 'generation.completed') {
    const done = await mmgen.generations.get(event.data.generation_id); // fresh signed URLs
    for (const o of done.outputs) console.log(`  ${o.type} ${o.mime} ${o.url}`);
  }
} finally {
  await mmgen.webhooks.delete(webhook.id);
  server.close();
}
