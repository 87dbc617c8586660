import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiError } from '../api/client.js';

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => Promise<void>;
  /** Replace the data locally (after a mutation that returned the new state). */
  set: (data: T) => void;
}

/**
 * Loads data with `load` when `deps` change, and again on `reload()`. Results
 * of a superseded load are dropped, so a slow answer never overwrites a newer one.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[], opts: { enabled?: boolean } = {}): Resource<T> {
  const enabled = opts.enabled ?? true;
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: enabled });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback(async (signal?: AbortSignal) => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await loadRef.current(signal ?? new AbortController().signal);
      if (mine === generation.current) setState({ data, loading: false });
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      if (mine === generation.current) setState((s) => ({ data: s.data, error: err as Error, loading: false }));
    }
  }, []);

  useEffect(() => {
    if (!enabled) {
      setState({ loading: false });
      return;
    }
    const ac = new AbortController();
    void run(ac.signal);
    return () => ac.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [enabled, ...deps]);

  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    reload: () => run(),
    set: (data: T) => setState({ data, loading: false }),
  };
}

/** Calls `fn` every `ms` while `active` and the page is visible. */
export function useInterval(fn: () => void, ms: number, active: boolean): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (!active) return;
    const id = window.setInterval(() => {
      if (document.visibilityState === 'visible') ref.current();
    }, ms);
    return () => window.clearInterval(id);
  }, [ms, active]);
}

/** The current time, re-rendered every `ms` (for elapsed-time counters). */
export function useNow(ms: number, active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useInterval(() => setNow(Date.now()), ms, active);
  return now;
}

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · mmgen`;
  }, [title]);
}
