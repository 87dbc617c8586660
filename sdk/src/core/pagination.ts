import { APIPromise, type WithResponse } from './api-promise.js';
import type { RequestOptions, Transport } from './transport.js';

/** The wire shape of every paged list (contract §1). */
export interface ListBody<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/**
 * One page of a list, newest first. `for await (const item of page)` walks
 * this page and every later one, fetching them as needed.
 */
export class Page<T extends { id: string }> implements AsyncIterable<T> {
  readonly object = 'list' as const;
  readonly data: T[];
  readonly has_more: boolean;

  constructor(
    body: ListBody<T>,
    private readonly fetchAfter: (startingAfter: string) => PagePromise<T>,
  ) {
    this.data = body.data;
    this.has_more = body.has_more;
  }

  hasNextPage(): boolean {
    return this.has_more && this.data.length > 0;
  }

  /** The page after this one; check hasNextPage() first. */
  getNextPage(): Promise<Page<T>> {
    const last = this.data[this.data.length - 1];
    if (!this.hasNextPage() || !last) return Promise.reject(new Error('There is no next page; check hasNextPage() first.'));
    return this.fetchAfter(last.id);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page: Page<T> = this;
    for (;;) {
      yield* page.data;
      if (!page.hasNextPage()) return;
      page = await page.getNextPage();
    }
  }

  toJSON(): ListBody<T> {
    return { object: 'list', data: this.data, has_more: this.has_more };
  }
}

/** What list methods return: await it for the first page, or `for await` over every item of every page. */
export class PagePromise<T extends { id: string }> extends APIPromise<Page<T>> implements AsyncIterable<T> {
  constructor(raw: Promise<WithResponse<Page<T>>>) {
    super(raw);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this;
  }
}

/** GET `path` as a paged list; later pages repeat the query with `starting_after`. */
export function paginate<T extends { id: string }>(
  transport: Transport,
  path: string,
  query: Record<string, unknown>,
  options: RequestOptions | undefined,
): PagePromise<T> {
  return new PagePromise(
    transport
      .request<ListBody<T>>({ method: 'GET', path, query, retry: 'idempotent' }, options)
      .withResponse()
      .then((r) => ({ ...r, data: new Page(r.data, (after) => paginate<T>(transport, path, { ...query, starting_after: after }, options)) })),
  );
}
