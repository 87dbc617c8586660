// Loaded into an `mmgen serve` by bench/stages.ts when BENCH_TIMELINE=1 (NODE_OPTIONS=--import), instead of the
// profiler, whose sampling would stretch the very latencies measured here. SIGUSR2 starts recording, the next SIGUSR2
// writes the events to $MMGEN_PROFILE_OUT. Events, each with performance.now(): an HTTP request's start (its headers
// parsed) and its response's finish (node's http diagnostics channels), each undici request's creation and the end
// of its body (undici's channels: the provider call), and each PostgreSQL statement's send and result (pg's
// Client.prototype.query, wrapped here: pg publishes no channel). Nothing of mmgen's own code is touched.
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let recording = false;
const events = [];
const at = (kind, extra) => {
  if (recording) events.push({ kind, t: performance.now(), ...extra });
};

diagnostics.subscribe('http.server.request.start', ({ request }) => at('request', { path: request.url }));
diagnostics.subscribe('http.server.response.finish', () => at('response'));
const upstream = new WeakMap();
let upstreamSeq = 0;
diagnostics.subscribe('undici:request:create', ({ request }) => {
  const id = ++upstreamSeq;
  upstream.set(request, id);
  at('upstream.sent', { id });
});
diagnostics.subscribe('undici:request:trailers', ({ request }) => at('upstream.done', { id: upstream.get(request) }));

// The pg the server loads: resolved from the checkout of the bin it runs (bin/mmgen → its package.json). Portkey's
// gateway (bench:stages with BENCH_TARGET=portkey) has none: its requests have no statements to see.
let pg = null;
try {
  pg = createRequire(join(dirname(process.argv[1]), '..', 'package.json'))('pg');
} catch {
  // not mmgen
}
const query = pg?.Client.prototype.query;
let statementSeq = 0;
if (pg) pg.Client.prototype.query = function (config, values, callback) {
  const text = typeof config === 'string' ? config : (config?.text ?? '');
  const what = /INSERT INTO generations/.test(text) ? 'accept' : (process.env.MMGEN_TIMELINE_TEXT ? text.replace(/\s+/g, ' ').slice(0, 90) : (text.trim().split(/\s+/)[0] ?? '').toUpperCase());
  const id = ++statementSeq;
  at('sql.sent', { id, what });
  const done = () => at('sql.done', { id, what });
  const cb = typeof callback === 'function' ? callback : typeof values === 'function' ? values : null;
  if (cb) {
    const wrapped = function (...args) {
      done();
      return cb.apply(this, args);
    };
    return typeof callback === 'function' ? query.call(this, config, values, wrapped) : query.call(this, config, wrapped);
  }
  const r = query.call(this, config, values);
  if (r && typeof r.then === 'function') r.then(done, done);
  return r;
};

process.on('SIGUSR2', () => {
  if (!recording) {
    recording = true;
    writeFileSync(`${process.env.MMGEN_PROFILE_OUT}.started`, '');
  } else {
    recording = false;
    writeFileSync(process.env.MMGEN_PROFILE_OUT, JSON.stringify(events));
  }
});
