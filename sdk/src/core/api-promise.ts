/** What a finished request gives: the parsed body and the response it came in. */
export interface WithResponse<T> {
  data: T;
  response: Response;
  /** mmgen's `req_…` id of the (last) attempt. */
  requestId: string | null;
}

/**
 * The promise every method returns: await it for the parsed body, or call
 * `withResponse()` for the body together with the HTTP response (headers such
 * as `Idempotent-Replayed`, `RateLimit-Remaining`, `X-Request-Id`).
 */
export class APIPromise<T> extends Promise<T> {
  private parsed: Promise<T> | undefined;

  constructor(private readonly raw: Promise<WithResponse<T>>) {
    // The base promise is a placeholder; then/catch/finally are served from `raw`.
    super((resolve) => resolve(null as T));
  }

  withResponse(): Promise<WithResponse<T>> {
    return this.raw;
  }

  private body(): Promise<T> {
    return (this.parsed ??= this.raw.then((r) => r.data));
  }

  override then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.body().then(onfulfilled, onrejected);
  }

  override catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.body().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.body().finally(onfinally);
  }
}
