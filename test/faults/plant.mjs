#!/usr/bin/env node
// Planted faults (issue 43, "The suite can still fail"): ten small, realistic mutations of src/, each of which
// `npm test` must catch. Each is an exact search/replace on one file, applied one at a time:
//
//   node test/faults/plant.mjs list              the faults, with the tests that catch them
//   node test/faults/plant.mjs <name>            plants one (exit 2 if its search text is not found exactly once)
//   node test/faults/plant.mjs revert <name>     undoes it (exit 2 if its planted text is not found exactly once)
//   node test/faults/plant.mjs status            which faults are planted in the working tree now
//
// `git checkout -- <file>` undoes a fault too. test/unit/planted-faults.test.ts checks, without writing anything,
// that every fault still applies to the source exactly once and that none is planted, so a refactor that moves
// the code makes that test fail rather than the list rot. Plain Node, no dependencies.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's root: this file is test/faults/plant.mjs. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * @typedef {object} Fault
 * @property {string} name       what `plant` and `revert` are given
 * @property {string} area       money, auth, isolation, idempotency, webhooks, moderation, catalog or store
 * @property {string} breaks     what goes wrong, in a line
 * @property {string} file       the one file changed, relative to the root
 * @property {string} search     the exact text replaced: found exactly once in the clean file
 * @property {string} replace    what replaces it: found nowhere in the clean file, so `revert` finds it
 * @property {string[]} caughtBy the test files measured to fail with it planted (test/README.md, "Planted faults")
 */

/** @type {readonly Fault[]} */
export const FAULTS = [
  {
    name: 'settlement-applied-twice',
    area: 'money',
    breaks: 'pending settlements are applied to the wallet row but not consumed, so each later settle charges them again',
    file: 'src/store/ledger.ts',
    search: `DELETE FROM wallet_pending WHERE id IN (SELECT id FROM wallet_pending WHERE organization_id = $1 ORDER BY id FOR UPDATE)
       RETURNING *),`,
    replace: `SELECT * FROM wallet_pending WHERE organization_id = $1 ORDER BY id FOR UPDATE),`,
    caughtBy: ['test/integration/settlement.test.ts'],
  },
  {
    name: 'refund-skipped',
    area: 'money',
    breaks: 'an attempt that charged nothing (failed, canceled, blocked) never releases its hold: the refund is skipped',
    file: 'src/store/finishing.ts',
    search: `id || '#' || attempt, id, api_key_id, model, modality FROM g
  WHERE price_credits - x_charged > 0
`,
    replace: `id || '#' || attempt, id, api_key_id, model, modality FROM g
  WHERE price_credits - x_charged > 0 AND x_charged > 0
`,
    caughtBy: ['test/integration/generations.test.ts'],
  },
  {
    name: 'scope-check-dropped',
    area: 'auth',
    breaks: "an API key's scopes are no longer checked: a key scoped to images:write reads the wallet and manages keys",
    file: 'src/http/auth.ts',
    search: `'\${auth.role}' role; this key has '\${principal.role}'.\`);
    }
    if (auth.scope && !scopeAllows(principal.scopes, auth.scope)) {
      throw new ApiError('insufficient_role', \`This key lacks the '\${auth.scope}' scope.\`);
    }
    assertMode(auth, principal);`,
    replace: `'\${auth.role}' role; this key has '\${principal.role}'.\`);
    }
    assertMode(auth, principal);`,
    caughtBy: ['test/integration/api-keys.test.ts'],
  },
  {
    name: 'revoked-key-accepted',
    area: 'auth',
    breaks: 'a revoked API key still authenticates',
    file: 'src/domain/api-keys.ts',
    search: `const row = await findKeyBySecretSha256(q, hash);
  if (!row || row.revoked_at || row.member_removed_at) return null;`,
    replace: `const row = await findKeyBySecretSha256(q, hash);
  if (!row || row.member_removed_at) return null;`,
    caughtBy: ['test/integration/auth.test.ts'],
  },
  {
    name: 'webhook-organization-filter-dropped',
    area: 'isolation',
    breaks: "the store's webhook lookup by id no longer filters by organization: another organization reads, changes and deletes it",
    file: 'src/store/webhooks.ts',
    search: `'SELECT * FROM webhooks WHERE id = $1 AND organization_id = $2 AND mode = $3 AND deleted_at IS NULL',
    [id, organizationId, mode],`,
    replace: `'SELECT * FROM webhooks WHERE id = $1 AND mode = $2 AND deleted_at IS NULL',
    [id, mode],`,
    caughtBy: ['test/integration/isolation.test.ts'],
  },
  {
    name: 'idempotency-body-not-compared',
    area: 'idempotency',
    breaks: "an Idempotency-Key reused with a different body replays the first answer instead of 422 idempotency_key_reused",
    file: 'src/http/idempotency.ts',
    search: `        'Idempotency-Key',
      );
    }
    if (row.request_sha256 !== fingerprint.requestSha256) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body. Use a new key for a different request.', 'Idempotency-Key');
    }
    if (row.state === 'in_flight') {`,
    replace: `        'Idempotency-Key',
      );
    }
    if (row.state === 'in_flight') {`,
    caughtBy: ['test/integration/idempotency.test.ts'],
  },
  {
    name: 'webhook-signed-wrong-bytes',
    area: 'webhooks',
    breaks: 'deliveries are signed over JSON.stringify of the body Buffer, not the bytes sent: no receiver can verify them',
    file: 'src/domain/webhooks/events.ts',
    search: `[SIGNATURE_HEADER]: signatureHeader(secret, body, nowSeconds),`,
    replace: `[SIGNATURE_HEADER]: signatureHeader(secret, JSON.stringify(body), nowSeconds),`,
    caughtBy: ['sdk/test/verify-agreement.test.ts', 'test/integration/webhooks.test.ts'],
  },
  {
    name: 'blocked-output-kept',
    area: 'moderation',
    breaks: "a 'blocked' verdict is compared with the policy's action word ('block'): blocked outputs are kept, charged and the generation succeeds",
    file: 'src/generations/finish.ts',
    search: `const kept = outputs.filter((o) => o.moderation_status !== 'blocked');`,
    replace: `const kept = outputs.filter((o) => o.moderation_status !== 'block');`,
    caughtBy: ['test/integration/moderation.test.ts'],
  },
  {
    name: 'delisted-model-listed',
    area: 'catalog',
    breaks: 'GET /v1/models lists delisted models without include_delisted',
    file: 'src/catalog/index.ts',
    search: `.filter((m) => (filter.includeDelisted || m.status === 'active') && (!filter.modality || m.modality === filter.modality))`,
    replace: `.filter((m) => !filter.modality || m.modality === filter.modality)`,
    caughtBy: ['test/integration/models.test.ts'],
  },
  {
    name: 'finish-without-status-gate',
    area: 'store',
    breaks: 'the finishing statement no longer requires the generation to be queued or running: an attempt already finished (or canceled) is finished again',
    file: 'src/store/finishing.ts',
    search: `AND generations.attempt = x.attempt
    AND generations.status IN ('queued', 'running')
  RETURNING generations.*`,
    replace: `AND generations.attempt = x.attempt
  RETURNING generations.*`,
    caughtBy: ['test/integration/wallet.test.ts'],
  },
];

/** How many times `needle` occurs in `text` (non-overlapping). */
export function occurrences(text, needle) {
  if (needle === '') throw new Error('an empty text cannot be searched for');
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** A fault by name, or undefined. */
export function faultNamed(name) {
  return FAULTS.find((f) => f.name === name);
}

function fail(code, message) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Replaces `from` by `to` in the fault's file if `from` occurs there exactly once; exits 2 otherwise. */
function swap(fault, from, to, verb) {
  const path = join(ROOT, fault.file);
  const text = readFileSync(path, 'utf8');
  const n = occurrences(text, from);
  if (n !== 1) {
    const planted = occurrences(text, fault.replace) > 0;
    const hint = verb === 'plant' && planted ? ' (it looks planted already)' : verb === 'revert' && !planted ? ' (it does not look planted)' : '';
    fail(2, `cannot ${verb} ${fault.name}: its ${verb === 'plant' ? 'search' : 'planted'} text occurs ${n} times in ${fault.file}, not once${hint}`);
  }
  writeFileSync(path, text.replace(from, () => to));
  process.stdout.write(`${verb === 'plant' ? 'planted' : 'reverted'} ${fault.name} in ${fault.file}\n`);
}

function planted() {
  return FAULTS.filter((f) => occurrences(readFileSync(join(ROOT, f.file), 'utf8'), f.replace) > 0);
}

function usage() {
  return 'usage: node test/faults/plant.mjs list | status | <name> | revert <name>';
}

function main(args) {
  const [command, arg] = args;
  if (command === 'list') {
    // One write: a reader that stops early (| head) then costs no EPIPE.
    process.stdout.write(FAULTS.map((f) => `${f.name.padEnd(38)} ${f.area.padEnd(12)} ${f.file}\n    ${f.breaks}\n    caught by: ${f.caughtBy.join(', ')}\n`).join(''));
    return;
  }
  if (command === 'status') {
    const now = planted();
    process.stdout.write(now.length === 0 ? 'no fault is planted\n' : now.map((f) => `planted: ${f.name} (${f.file})\n`).join(''));
    return;
  }
  if (command === 'revert') {
    const fault = arg === undefined ? undefined : faultNamed(arg);
    if (!fault) fail(1, `${arg === undefined ? 'which fault?' : `no fault named ${arg}`}\n${usage()}`);
    swap(fault, fault.replace, fault.search, 'revert');
    return;
  }
  const fault = command === undefined ? undefined : faultNamed(command);
  if (!fault || arg !== undefined) fail(1, `${command === undefined || fault ? '' : `no fault named ${command}\n`}${usage()}`);
  const others = planted().filter((f) => f !== fault);
  if (others.length > 0) process.stderr.write(`note: also planted: ${others.map((f) => f.name).join(', ')}\n`);
  swap(fault, fault.search, fault.replace, 'plant');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main(process.argv.slice(2));
