import { APIUserAbortError } from '../errors.js';

/** An environment variable where there is a process (Node, Bun, Deno), else undefined (browsers). */
export function readEnv(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = proc?.env?.[name]?.trim();
  return value ? value : undefined;
}

/** True in a browser page or web worker (where an API key in the code is visible to its users). */
export function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown; process?: { versions?: { node?: string } } };
  if (g.process?.versions?.node) return false;
  return (typeof g.window === 'object' && typeof g.document === 'object') || typeof g.importScripts === 'function';
}

/** A random UUID v4; crypto.randomUUID is missing outside secure contexts (plain-http pages), getRandomValues is not. */
export function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Waits `ms`, or rejects with APIUserAbortError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new APIUserAbortError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A signal that fires when any of `signals` does; `dispose` detaches it. */
export function anySignal(signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const onAbort = () => controller.abort();
  for (const s of present) {
    if (s.aborted) {
      controller.abort();
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: controller.signal, dispose: () => present.forEach((s) => s.removeEventListener('abort', onAbort)) };
}

/** `{a: 1, b: undefined}` → `?a=1`; arrays repeat the key. */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** A path segment from a caller-given id, so `../` or `?` in an id cannot reach another route. */
export function segment(id: string): string {
  if (typeof id !== 'string' || id === '') throw new TypeError('Expected a non-empty id string.');
  return encodeURIComponent(id);
}
