/**
 * The zero-latency upstream of the gateway bench: the OpenAI fake in its
 * `fast` mode (a canned chat completion, nothing recorded), in a process of
 * its own so it does not share an event loop with a gateway or the load
 * generator. Prints its port on stdout.
 */
import { OpenAiFake } from '../test/fakes/openai.js';

const fake = new OpenAiFake({ fast: true, key: process.env.UPSTREAM_KEY ?? 'sk-bench' });
fake.record = false;
await fake.start();
process.stdout.write(`${new URL(fake.url).port}\n`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
