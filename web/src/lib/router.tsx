import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

/** The dashboard lives under /dashboard; the server answers every path below it with index.html. */
export const BASE = '/dashboard';

const NAVIGATE = 'mmgen:navigate';

function subscribe(cb: () => void): () => void {
  window.addEventListener('popstate', cb);
  window.addEventListener(NAVIGATE, cb);
  return () => {
    window.removeEventListener('popstate', cb);
    window.removeEventListener(NAVIGATE, cb);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

/** The app's path (without /dashboard) and query. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const full = useSyncExternalStore(subscribe, snapshot);
  const [pathname, qs = ''] = full.split('?');
  let path = pathname!.startsWith(BASE) ? pathname!.slice(BASE.length) : pathname!;
  if (path === '') path = '/';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return { path, search: new URLSearchParams(qs) };
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = BASE + (to === '/' ? '/' : to);
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATE));
}

/** Replaces the query of the current page (filters that should survive a reload or a shared link). */
export function setSearch(updates: Record<string, string | null | undefined>): void {
  const q = new URLSearchParams(window.location.search);
  for (const [k, v] of Object.entries(updates)) {
    if (v === null || v === undefined || v === '') q.delete(k);
    else q.set(k, v);
  }
  const qs = q.toString();
  window.history.replaceState(null, '', window.location.pathname + (qs ? `?${qs}` : ''));
  window.dispatchEvent(new Event(NAVIGATE));
}

/** Matches "/generations/:id" against a path; returns the params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string; children: ReactNode };

/** A real link (it opens in a new tab, it is focusable), navigated in place on a plain click. */
export function Link({ to, onClick, children, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={BASE + (to === '/' ? '/' : to)} onClick={handle} {...rest}>
      {children}
    </a>
  );
}

/** Replaces the current address with `to` (an old path's new home), so Back does not return to the old one. */
export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
