import { client, type ApiResponse } from './server.js';

/**
 * A browser-like client of the API for tests: keeps the session cookies it is sent (dropping those cleared) and
 * sends the CSRF token (from the `mmgen_csrf` cookie) on state-changing requests, as the dashboard does.
 */
export function browser(baseUrl: string) {
  const api = client(baseUrl);
  const jar = new Map<string, string>();
  let csrf: string | undefined;
  async function call<T = any>(method: string, path: string, opts: { body?: unknown; csrf?: boolean; key?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (opts.csrf !== false && csrf !== undefined && method !== 'GET') headers['x-csrf-token'] = csrf;
    const res = await api<T>(method, path, { body: opts.body, headers, key: opts.key });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value === '' || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
      if (name === 'mmgen_csrf') csrf = value || undefined;
    }
    return res;
  }
  return {
    call,
    jar,
    get csrf() {
      return csrf;
    },
  };
}
