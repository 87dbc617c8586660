import { MmgenError } from './errors.js';
import { Transport } from './core/transport.js';
import { isBrowser, readEnv } from './core/util.js';
import { ApiKeys } from './resources/api-keys.js';
import { Invitations, Members } from './resources/members.js';
import { Chat } from './resources/chat.js';
import { Comparisons } from './resources/comparisons.js';
import { Avatars, Images, Music, ThreeD, Upscale, Videos, Voice } from './resources/create.js';
import { Generations } from './resources/generations.js';
import { Models } from './resources/models.js';
import { OrganizationResource, WalletResource } from './resources/organization.js';
import { Quotes } from './resources/quotes.js';
import { Uploads } from './resources/uploads.js';
import { UsageResource } from './resources/usage.js';
import { Webhooks } from './resources/webhooks.js';
import { AuditEvents } from './resources/audit-events.js';

export interface ClientOptions {
  /** An `sk_live_…` or `sk_test_…` key. Default: the MMGEN_API_KEY environment variable. */
  apiKey?: string | undefined;
  /** Where mmgen runs, e.g. `https://mmgen.example.com`. Default: MMGEN_BASE_URL, else http://localhost:8080. A trailing `/v1` is accepted. */
  baseURL?: string | undefined;
  /** Milliseconds for one attempt of a request (default 120000). wait() has its own `timeout`. */
  timeout?: number;
  /** Retries after a failed attempt (default 2). See RetryPolicy for which failures are retried. */
  maxRetries?: number;
  /** The longest Retry-After the client sleeps through, in ms (default 60000); a longer one surfaces the RateLimitError instead. */
  maxRetryDelay?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Headers sent with every API request. */
  defaultHeaders?: Record<string, string>;
  /**
   * In a browser, an API key in the page is readable by every visitor. Set
   * this only when the page is yours alone (an internal tool, a dashboard
   * served by mmgen) or the key is a narrow one you accept to expose.
   */
  dangerouslyAllowBrowser?: boolean;
}

export const DEFAULT_BASE_URL = 'http://localhost:8080';

function normalizeBaseURL(url: string): string {
  let u = url.trim().replace(/\/+$/, '');
  if (u.endsWith('/v1')) u = u.slice(0, -3);
  if (!/^https?:\/\/[^/]/i.test(u)) throw new MmgenError(`baseURL must be an http(s) URL, got ${JSON.stringify(url)}.`);
  return u;
}

/**
 * The mmgen client.
 *
 *   const mmgen = new Mmgen({ apiKey: 'sk_test_…' });
 *   const image = await mmgen.images.create({ model: 'flux-schnell', prompt: 'a lighthouse at dawn' });
 *   const video = await mmgen.generations.wait(await mmgen.videos.create({ model: 'kling-v2.1-master', prompt: 'waves' }));
 */
export class Mmgen {
  readonly baseURL: string;
  /** @internal */
  readonly _transport: Transport;

  readonly images: Images;
  readonly videos: Videos;
  readonly voice: Voice;
  readonly music: Music;
  readonly avatars: Avatars;
  readonly chat: Chat;
  readonly threeD: ThreeD;
  readonly upscale: Upscale;
  readonly generations: Generations;
  readonly comparisons: Comparisons;
  readonly quotes: Quotes;
  readonly models: Models;
  readonly organization: OrganizationResource;
  readonly wallet: WalletResource;
  readonly apiKeys: ApiKeys;
  readonly members: Members;
  readonly invitations: Invitations;
  readonly webhooks: Webhooks;
  readonly auditEvents: AuditEvents;
  readonly uploads: Uploads;
  readonly usage: UsageResource;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? readEnv('MMGEN_API_KEY');
    if (!apiKey) throw new MmgenError('No API key: pass { apiKey } or set MMGEN_API_KEY (an sk_live_… or sk_test_… key).');
    if (isBrowser() && !options.dangerouslyAllowBrowser) {
      throw new MmgenError('Running in a browser exposes your API key to the page. Pass { dangerouslyAllowBrowser: true } if that is what you want.');
    }
    if (typeof (options.fetch ?? globalThis.fetch) !== 'function') throw new MmgenError('No fetch implementation: use Node 20+ or pass { fetch }.');
    this.baseURL = normalizeBaseURL(options.baseURL ?? readEnv('MMGEN_BASE_URL') ?? DEFAULT_BASE_URL);
    this._transport = new Transport({
      apiKey,
      baseURL: this.baseURL,
      timeout: options.timeout ?? 120_000,
      maxRetries: options.maxRetries ?? 2,
      maxRetryDelay: options.maxRetryDelay ?? 60_000,
      // Bound to globalThis: some runtimes refuse a fetch called as a method of another object.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      defaultHeaders: options.defaultHeaders ?? {},
    });
    const t = this._transport;
    this.generations = new Generations(t);
    this.images = new Images(t);
    this.videos = new Videos(t);
    this.voice = new Voice(t);
    this.music = new Music(t);
    this.avatars = new Avatars(t);
    this.chat = new Chat(t);
    this.threeD = new ThreeD(t);
    this.upscale = new Upscale(t);
    this.comparisons = new Comparisons(t, this.generations);
    this.quotes = new Quotes(t);
    this.models = new Models(t);
    this.organization = new OrganizationResource(t);
    this.wallet = new WalletResource(t);
    this.apiKeys = new ApiKeys(t);
    this.members = new Members(t);
    this.invitations = new Invitations(t);
    this.webhooks = new Webhooks(t);
    this.auditEvents = new AuditEvents(t);
    this.uploads = new Uploads(t);
    this.usage = new UsageResource(t);
  }
}
