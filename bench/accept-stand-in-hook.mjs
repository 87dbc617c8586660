// Loaded into an `mmgen serve` (NODE_OPTIONS=--import) by `bench:side-by-side` with BENCH_THIS_NODE_OPTIONS, to
// measure what the accepting statement's own work in PostgreSQL costs the gateway path: every accepting statement
// (INSERT INTO generations …) is replaced by a trivial one, `SELECT now()`, that still makes the round trip. Nothing
// is reserved or written, so the finishing statement then finds no generation and charges nothing: a measurement
// only, never a way to run. mmgen's own code is not touched; pg's Client.prototype.query is wrapped, as
// timeline-hook.mjs does.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const pg = createRequire(join(dirname(process.argv[1]), '..', 'package.json'))('pg');
const query = pg.Client.prototype.query;
const STAND_IN = { name: 'mm_accept_stand_in', text: 'SELECT now() AS created_at, 1000000000000::bigint AS wallet_free', values: [] };
pg.Client.prototype.query = function (config, values, callback) {
  const text = typeof config === 'string' ? config : (config?.text ?? '');
  if (!/INSERT INTO generations/.test(text)) return query.call(this, config, values, callback);
  const cb = typeof callback === 'function' ? callback : typeof values === 'function' ? values : undefined;
  return cb ? query.call(this, STAND_IN, cb) : query.call(this, STAND_IN);
};
