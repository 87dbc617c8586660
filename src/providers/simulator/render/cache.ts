/**
 * One bounded LRU shared by every renderer. Bounded by bytes as well as by
 * entries because a single video weighs as much as a hundred thumbnails; a
 * count limit alone would let memory grow with the mix of requests.
 */
export interface CacheLimits {
  /** Total payload bytes kept. */
  maxBytes: number;
  maxEntries: number;
  /**
   * Larger values are served but not kept, so one oversized render cannot
   * evict the whole working set.
   */
  maxItemBytes: number;
}

export interface CacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  /** Callers that joined a render already in progress instead of starting one. */
  joined: number;
  evictions: number;
}

interface Entry {
  value: unknown;
  size: number;
}

export const DEFAULT_CACHE_LIMITS: CacheLimits = {
  maxBytes: 256 * 1024 * 1024,
  maxEntries: 4096,
  maxItemBytes: 32 * 1024 * 1024,
};

export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<unknown>>();
  private limits: CacheLimits;
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private joined = 0;
  private evictions = 0;

  constructor(limits: Partial<CacheLimits> = {}) {
    this.limits = { ...DEFAULT_CACHE_LIMITS, ...limits };
  }

  configure(limits: Partial<CacheLimits>): void {
    this.limits = { ...this.limits, ...limits };
    this.evict();
  }

  /**
   * Returns the cached value or renders it once. Concurrent callers with the
   * same key share one render: under load the same test prompt arrives many
   * times before the first render finishes, and rendering it N times in
   * parallel would defeat the cache exactly when it matters.
   *
   * Cached values are shared between callers and must be treated as immutable.
   */
  async getOrCreate<T>(key: string, make: () => Promise<T>, sizeOf: (value: T) => number): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      this.hits++;
      // Re-insert to move the key to the most-recently-used end of the Map.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value as T;
    }
    const inFlight = this.pending.get(key);
    if (inFlight) {
      this.joined++;
      return inFlight as Promise<T>;
    }
    this.misses++;
    const p = make().then(
      (value) => {
        this.pending.delete(key);
        this.store(key, value, sizeOf(value));
        return value;
      },
      (err: unknown) => {
        // Failures are not cached: they are usually timeouts or overload.
        this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, p);
    return p;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.hits = this.misses = this.joined = this.evictions = 0;
  }

  stats(): CacheStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      misses: this.misses,
      joined: this.joined,
      evictions: this.evictions,
    };
  }

  private store(key: string, value: unknown, size: number): void {
    if (size > this.limits.maxItemBytes || size > this.limits.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.size;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, size });
    this.bytes += size;
    this.evict();
  }

  private evict(): void {
    while (this.entries.size > 0 && (this.bytes > this.limits.maxBytes || this.entries.size > this.limits.maxEntries)) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      const e = this.entries.get(oldest.value);
      this.entries.delete(oldest.value);
      if (e) this.bytes -= e.size;
      this.evictions++;
    }
  }
}

/** The process-wide cache used by all render functions. */
export const renderCache = new RenderCache();
