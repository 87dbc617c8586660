// Loaded into an `mmgen serve` by bench/stages.ts (NODE_OPTIONS=--import): SIGUSR2 starts a CPU profile, the next
// SIGUSR2 writes it to $MMGEN_PROFILE_OUT, so the profile covers exactly the requests the bench times.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new Session();
session.connect();
let running = false;
const post = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));
process.on('SIGUSR2', () => {
  void (async () => {
    if (!running) {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: Number(process.env.MMGEN_PROFILE_INTERVAL_US ?? 100) });
      await post('Profiler.start');
      running = true;
      writeFileSync(`${process.env.MMGEN_PROFILE_OUT}.started`, '');
    } else {
      const { profile } = await post('Profiler.stop');
      running = false;
      writeFileSync(process.env.MMGEN_PROFILE_OUT, JSON.stringify(profile));
    }
  })();
});
