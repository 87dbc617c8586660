import { createHash, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { FakeServer, bearer, type FakeRequest, type Reply } from './base.js';

/**
 * A strict loopback Stripe, written from Stripe's public API reference (https://docs.stripe.com/api) for the parts
 * mmgen uses: Customers, Checkout Sessions (payment and setup mode) with a hosted page that completes them,
 * PaymentIntents (created and confirmed off-session with a saved card), SetupIntents, PaymentMethods, Charges,
 * Refunds and Disputes, and events sent to webhook endpoints signed as Stripe signs them (with the stripe
 * library's own `webhooks.generateTestHeaderString`).
 *
 * It refuses what Stripe refuses, in Stripe's error shape `{error: {type, code, message, param}}` and status:
 * an unknown parameter (400 parameter_unknown), a missing one (400 parameter_missing), an unsupported currency,
 * an amount below the currency's minimum (amount_too_small), an Idempotency-Key reused with other parameters
 * (400 idempotency_error), an unknown object (404 resource_missing), a wrong key (401).
 *
 * Cards follow Stripe's test numbers: 4242424242424242 pays; 4000000000000002 is declined (card_declined);
 * 4000002760003184 pays on the hosted page (the customer authenticates there) but needs authentication off-session
 * (authentication_required, the PaymentIntent left requires_payment_method).
 *
 * A key reads only its own account's objects of its own mode (test or live): another account's object, or one of
 * the other mode, is answered 404 resource_missing as one that never existed (`paymentElsewhere` makes such objects,
 * whose events still reach an endpoint wired to that account or mode).
 */

type Obj = Record<string, unknown>;
type Params = Record<string, unknown>;

/** The version mmgen pins (src/billing/stripe.ts); events are written in it. */
export const STRIPE_API_VERSION = '2026-10-28.endive';

export const CARD_OK = '4242424242424242';
export const CARD_DECLINED = '4000000000000002';
export const CARD_NEEDS_AUTHENTICATION = '4000002760003184';

/** Stripe's minimum charge per currency (smallest unit); the currencies this fake's account accepts. */
const MINIMUM: Record<string, number> = { usd: 50, eur: 50, gbp: 30, jpy: 50 };

class StripeError extends Error {
  constructor(readonly status: number, readonly body: { type: string; code?: string; message: string; param?: string; [k: string]: unknown }) {
    super(body.message);
  }
}

const unknownParam = (p: string) => new StripeError(400, { type: 'invalid_request_error', code: 'parameter_unknown', message: `Received unknown parameter: ${p}`, param: p });
const missingParam = (p: string) => new StripeError(400, { type: 'invalid_request_error', code: 'parameter_missing', message: `Missing required param: ${p}.`, param: p });
const invalidParam = (p: string, message: string) => new StripeError(400, { type: 'invalid_request_error', code: 'parameter_invalid_string', message, param: p });
const noSuch = (what: string, id: string, param = 'id') =>
  new StripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'`, param });

/** Stripe's form encoding (`a[b][0][c]=v`) into nested objects; indexed keys become arrays. */
export function parseForm(text: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const name = part === '' ? String(Object.keys(node).length) : part;
      if (last) node[name] = value;
      else node = (node[name] ??= {}) as Record<string, unknown>;
    });
  }
  return arraysFromIndexes(root) as Params;
}

function arraysFromIndexes(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  const fixed = Object.fromEntries(keys.map((k) => [k, arraysFromIndexes(o[k])]));
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => fixed[k]);
  return fixed;
}

/** What each parameter may be: its allowed children (an object), 'string' (a leaf), 'map' (metadata: any leaves), or a list of one shape. */
type Shape = 'string' | 'map' | { [k: string]: Shape } | [Shape];

function check(params: unknown, shape: Shape, path: string): void {
  if (shape === 'string') {
    if (typeof params !== 'string') throw invalidParam(path, `Invalid string: ${path} must be a string`);
    return;
  }
  if (shape === 'map') {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) throw invalidParam(path, `Invalid object: ${path}`);
    for (const [k, v] of Object.entries(params)) if (typeof v !== 'string') throw invalidParam(`${path}[${k}]`, `Invalid string: ${path}[${k}]`);
    return;
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(params)) throw invalidParam(path, `Invalid array: ${path}`);
    params.forEach((p, i) => check(p, shape[0], `${path}[${i}]`));
    return;
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw invalidParam(path, `Invalid object: ${path}`);
  for (const [k, v] of Object.entries(params)) {
    const child = shape[k];
    const childPath = path ? `${path}[${k}]` : k;
    if (child === undefined) throw unknownParam(childPath);
    check(v, child, childPath);
  }
}

const S = 'string' as const;
const EXPAND: Shape = [S];
const SHAPES: Record<string, Shape> = {
  'customer.create': { name: S, email: S, description: S, metadata: 'map', expand: EXPAND },
  'checkout.create': {
    mode: S, success_url: S, cancel_url: S, customer: S, client_reference_id: S, metadata: 'map', currency: S, locale: S, expires_at: S,
    submit_type: S, payment_method_types: [S], customer_email: S, expand: EXPAND,
    line_items: [{ quantity: S, price: S, price_data: { currency: S, unit_amount: S, unit_amount_decimal: S, product: S, product_data: { name: S, description: S, metadata: 'map' } } }],
    payment_intent_data: { metadata: 'map', description: S, setup_future_usage: S, receipt_email: S },
    setup_intent_data: { metadata: 'map', description: S },
    invoice_creation: { enabled: S },
  },
  'payment_intent.create': {
    amount: S, currency: S, customer: S, payment_method: S, off_session: S, confirm: S, metadata: 'map', description: S, receipt_email: S,
    payment_method_types: [S], error_on_requires_action: S, setup_future_usage: S, statement_descriptor_suffix: S, expand: EXPAND,
    automatic_payment_methods: { enabled: S, allow_redirects: S },
  },
  'payment_intent.confirm': { payment_method: S, off_session: S, error_on_requires_action: S, expand: EXPAND },
  'refund.create': { charge: S, payment_intent: S, amount: S, reason: S, metadata: 'map', expand: EXPAND },
  retrieve: { expand: EXPAND },
  'payment_intent.list': { customer: S, created: { gt: S, gte: S, lt: S, lte: S }, limit: S, starting_after: S, ending_before: S, expand: EXPAND },
  'refund.list': { charge: S, payment_intent: S, limit: S, starting_after: S, ending_before: S, expand: EXPAND },
  'payment_method.list': { type: S, limit: S, starting_after: S, ending_before: S, expand: EXPAND },
};

function int(p: Params, name: string, required: boolean): number | undefined {
  const raw = p[name];
  if (raw === undefined) {
    if (required) throw missingParam(name);
    return undefined;
  }
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new StripeError(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', message: `Invalid integer: ${String(raw)}`, param: name });
  return Number(raw);
}

function bool(p: Params, name: string): boolean {
  const raw = p[name];
  if (raw === undefined) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new StripeError(400, { type: 'invalid_request_error', code: 'parameter_invalid_boolean', message: `Invalid boolean: ${String(raw)}`, param: name });
}

function currencyOf(p: Params, name: string, param = name): string {
  const raw = p[name];
  if (raw === undefined) throw missingParam(param);
  const c = String(raw).toLowerCase();
  // Stripe's own answer carries no code here, only the parameter and the message.
  if (!(c in MINIMUM)) throw new StripeError(400, { type: 'invalid_request_error', message: `Invalid currency: ${c}. Stripe currently supports these currencies: ${Object.keys(MINIMUM).join(', ')}`, param });
  return c;
}

function minimumAmount(amount: number, currency: string, param: string): void {
  const min = MINIMUM[currency]!;
  if (amount < min) throw new StripeError(400, { type: 'invalid_request_error', code: 'amount_too_small', message: `Amount must be at least ${min} ${currency} (smallest unit)`, param });
  if (amount > 99_999_999) throw new StripeError(400, { type: 'invalid_request_error', code: 'amount_too_large', message: 'Amount must be no more than 99999999', param });
}

export interface DeliveryResult {
  url: string;
  status: number;
}

export class FakeStripe extends FakeServer {
  readonly webhookSecret: string;
  /** Where events are sent (a webhook endpoint per mmgen node); each event goes to all of them. */
  endpoints: string[] = [];
  /** Each event is sent again this many times while its endpoint answers other than 2xx (Stripe retries for days). */
  retries = 3;
  retryDelayMs = 100;
  /** Sends events as they happen; off, they are kept in `events` for a test to deliver itself. */
  autoDeliver = true;
  readonly events: Obj[] = [];
  readonly deliveries: DeliveryResult[] = [];
  readonly customers = new Map<string, Obj>();
  readonly sessions = new Map<string, Obj>();
  readonly paymentIntents = new Map<string, Obj>();
  readonly setupIntents = new Map<string, Obj>();
  readonly paymentMethods = new Map<string, Obj & { card_number: string }>();
  readonly charges = new Map<string, Obj>();
  readonly refunds = new Map<string, Obj>();
  readonly disputes = new Map<string, Obj>();
  /** The off-session payments confirmed so far, in order, with the moment each was confirmed (for in-flight checks). */
  readonly offSessionConfirms: { id: string; at: number; customer: string; amount: number }[] = [];
  /** The account the key belongs to, and the key's mode (sk_live_…: live): it reads only that account's objects of that mode. */
  readonly account = `acct_${randomBytes(8).toString('hex')}`;
  readonly livemode: boolean;
  /** The objects of other accounts (id → account); every other object is the key's account's. */
  private readonly accountOf = new Map<string, string>();
  private readonly idempotency = new Map<string, { fingerprint: string; reply: Promise<Reply> }>();
  private readonly pendingDeliveries = new Set<Promise<unknown>>();
  private seq = 0;

  constructor(key = `sk_test_${randomBytes(12).toString('hex')}`, webhookSecret = `whsec_${randomBytes(16).toString('hex')}`) {
    super(key);
    this.webhookSecret = webhookSecret;
    this.livemode = /^(sk|rk)_live_/.test(key);
  }

  private id(prefix: string): string {
    return `${prefix}_test_${(++this.seq).toString(36).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
  }

  private now(): number {
    return Math.floor(Date.now() / 1000);
  }

  /** The environment that points mmgen at this fake. */
  env(): Record<string, string> {
    return { MMGEN_STRIPE_SECRET_KEY: this.key, MMGEN_STRIPE_WEBHOOK_SECRET: this.webhookSecret, MMGEN_STRIPE_API_URL: this.url };
  }

  /** Waits for every delivery started so far (and their retries). */
  async settled(): Promise<void> {
    while (this.pendingDeliveries.size > 0) await Promise.allSettled([...this.pendingDeliveries]);
  }

  override async close(): Promise<void> {
    this.autoDeliver = false;
    await this.settled();
    await super.close();
  }

  protected async route(req: FakeRequest): Promise<Reply> {
    if (req.path.startsWith('/pay/')) return this.hostedPage(req);
    if (bearer(req) !== this.key) {
      return this.jsonReply(401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${(bearer(req) ?? '').slice(0, 8)}****` } });
    }
    const text = req.method === 'GET' ? req.query.toString() : req.body.toString('utf8');
    if (req.method === 'POST' && req.body.length > 0 && !String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return this.jsonReply(400, { error: { type: 'invalid_request_error', message: 'Invalid request: Stripe takes form-encoded bodies (application/x-www-form-urlencoded).' } });
    }
    const params = parseForm(text);
    const key = req.headers['idempotency-key'];
    if (req.method === 'POST' && typeof key === 'string') {
      const fingerprint = createHash('sha256').update(`${req.method} ${req.path}\n${text}`).digest('hex');
      const seen = this.idempotency.get(key);
      if (seen) {
        if (seen.fingerprint !== fingerprint) {
          return this.jsonReply(400, {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            },
          });
        }
        const r = await seen.reply;
        return { ...r, headers: { ...r.headers, 'idempotent-replayed': 'true' } };
      }
      const reply = this.answer(req, params);
      this.idempotency.set(key, { fingerprint, reply });
      return reply;
    }
    return this.answer(req, params);
  }

  private async answer(req: FakeRequest, p: Params): Promise<Reply> {
    try {
      const body = await this.dispatch(req.method, req.path, p);
      return this.jsonReply(200, body, { 'request-id': `req_${randomBytes(7).toString('hex')}` });
    } catch (err) {
      if (err instanceof StripeError) return this.jsonReply(err.status, { error: { ...err.body, doc_url: err.body.code ? `https://docs.stripe.com/error-codes/${err.body.code.replace(/_/g, '-')}` : undefined } });
      throw err;
    }
  }

  private async dispatch(method: string, path: string, p: Params): Promise<Obj> {
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/customers') return this.createCustomer(p);
    if (method === 'GET' && (m = path.match(/^\/v1\/customers\/([^/]+)$/))) return this.get(this.customers, 'customer', m[1]!, p);
    if (method === 'GET' && (m = path.match(/^\/v1\/customers\/([^/]+)\/payment_methods$/))) {
      check(p, SHAPES['payment_method.list']!, '');
      this.get(this.customers, 'customer', m[1]!, {});
      const data = [...this.paymentMethods.values()].filter((pm) => pm.customer === m![1]).map((pm) => this.publicPm(pm));
      return { object: 'list', url: path, has_more: false, data };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.createSession(p);
    if (method === 'GET' && (m = path.match(/^\/v1\/checkout\/sessions\/([^/]+)$/))) return this.get(this.sessions, 'checkout.session', m[1]!, p);
    if (method === 'POST' && path === '/v1/payment_intents') return this.createPaymentIntent(p);
    if (method === 'GET' && path === '/v1/payment_intents') return this.listPaymentIntents(p);
    if (method === 'GET' && (m = path.match(/^\/v1\/payment_intents\/([^/]+)$/))) return this.get(this.paymentIntents, 'payment_intent', m[1]!, p);
    if (method === 'POST' && (m = path.match(/^\/v1\/payment_intents\/([^/]+)\/confirm$/))) return this.confirmPaymentIntent(m[1]!, p);
    if (method === 'GET' && (m = path.match(/^\/v1\/setup_intents\/([^/]+)$/))) return this.get(this.setupIntents, 'setup_intent', m[1]!, p);
    if (method === 'GET' && (m = path.match(/^\/v1\/payment_methods\/([^/]+)$/))) return this.publicPm(this.get(this.paymentMethods, 'payment_method', m[1]!, p) as Obj & { card_number: string });
    if (method === 'GET' && (m = path.match(/^\/v1\/charges\/([^/]+)$/))) return this.get(this.charges, 'charge', m[1]!, p);
    if (method === 'POST' && path === '/v1/refunds') return this.createRefund(p);
    if (method === 'GET' && path === '/v1/refunds') {
      check(p, SHAPES['refund.list']!, '');
      const data = [...this.refunds.values()].filter((r) => this.isReadable(r) && (!p.charge || r.charge === p.charge) && (!p.payment_intent || r.payment_intent === p.payment_intent));
      return { object: 'list', url: '/v1/refunds', has_more: false, data };
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/refunds\/([^/]+)$/))) return this.get(this.refunds, 'refund', m[1]!, p);
    if (method === 'GET' && (m = path.match(/^\/v1\/disputes\/([^/]+)$/))) return this.get(this.disputes, 'dispute', m[1]!, p);
    throw new StripeError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  private get(map: Map<string, Obj>, what: string, id: string, p: Params): Obj {
    check(p, SHAPES.retrieve!, '');
    return this.expand(this.readable(map.get(id), what, id), (p.expand as string[] | undefined) ?? []);
  }

  /** The object if this key may read it; otherwise Stripe's 404, which says no more than that it does not exist here. */
  private readable(o: Obj | undefined, what: string, id: string, param = 'id'): Obj {
    if (!o || (this.accountOf.get(id) ?? this.account) !== this.account) throw noSuch(what, id, param);
    if (typeof o.livemode === 'boolean' && o.livemode !== this.livemode) {
      const [mode, keyMode] = o.livemode ? ['live', 'test'] : ['test', 'live'];
      throw new StripeError(404, {
        type: 'invalid_request_error', code: 'resource_missing', param,
        message: `No such ${what}: '${id}'; a similar object exists in ${mode} mode, but a ${keyMode} mode key was used to make this request.`,
      });
    }
    return o;
  }

  private isReadable(o: Obj): boolean {
    try {
      this.readable(o, '', String(o.id));
      return true;
    } catch {
      return false;
    }
  }

  /** `expand[]`: each named id field replaced by its object (one level, as mmgen asks). */
  private expand(o: Obj, fields: string[]): Obj {
    const out: Obj = { ...o };
    for (const f of fields) {
      const [head, ...rest] = f.split('.');
      const id = out[head!];
      if (typeof id !== 'string') {
        if (id === null || id === undefined) continue;
        throw invalidParam('expand', `This property cannot be expanded (${f}).`);
      }
      const found = this.byId(id);
      if (!found) throw invalidParam('expand', `This property cannot be expanded (${f}).`);
      out[head!] = rest.length > 0 ? this.expand(found, [rest.join('.')]) : found;
    }
    return out;
  }

  private byId(id: string): Obj | undefined {
    for (const map of [this.customers, this.sessions, this.paymentIntents, this.setupIntents, this.charges, this.refunds, this.disputes]) {
      const o = map.get(id);
      if (o) return this.isReadable(o) ? o : undefined;
    }
    const pm = this.paymentMethods.get(id);
    return pm ? this.publicPm(pm) : undefined;
  }

  private publicPm(pm: Obj & { card_number: string }): Obj {
    const { card_number: number, ...rest } = pm;
    return { ...rest, card: { brand: 'visa', last4: number.slice(-4), exp_month: 12, exp_year: 2034 } };
  }

  private createCustomer(p: Params): Obj {
    check(p, SHAPES['customer.create']!, '');
    const c = { id: this.id('cus'), object: 'customer', created: this.now(), livemode: this.livemode, name: p.name ?? null, email: p.email ?? null, description: p.description ?? null, metadata: p.metadata ?? {}, invoice_settings: { default_payment_method: null } };
    this.customers.set(c.id, c);
    return c;
  }

  private customerOf(p: Params, param = 'customer'): string | null {
    if (p.customer === undefined) return null;
    const id = String(p.customer);
    this.readable(this.customers.get(id), 'customer', id, param);
    return id;
  }

  private createSession(p: Params): Obj {
    check(p, SHAPES['checkout.create']!, '');
    const mode = p.mode;
    if (mode === undefined) throw missingParam('mode');
    if (mode !== 'payment' && mode !== 'setup') throw invalidParam('mode', `Invalid mode: must be one of payment, setup or subscription (this fake serves payment and setup)`);
    if (p.success_url === undefined) throw missingParam('success_url');
    const customer = this.customerOf(p);
    let amount: number | null = null;
    let currency: string | null = null;
    const lineItems = (p.line_items as Obj[] | undefined) ?? [];
    if (mode === 'payment') {
      if (lineItems.length === 0) throw missingParam('line_items');
      amount = 0;
      lineItems.forEach((li, i) => {
        const quantity = int(li, 'quantity', true)!;
        const pd = li.price_data as Obj | undefined;
        if (!pd) throw missingParam(`line_items[${i}][price_data]`);
        const c = currencyOf(pd, 'currency', `line_items[${i}][price_data][currency]`);
        if (currency && c !== currency) throw invalidParam(`line_items[${i}][price_data][currency]`, 'All line items must be in the same currency.');
        currency = c;
        if (!pd.product && !pd.product_data) throw missingParam(`line_items[${i}][price_data][product_data]`);
        if (pd.product_data && !(pd.product_data as Obj).name) throw missingParam(`line_items[${i}][price_data][product_data][name]`);
        if (pd.unit_amount === undefined) throw missingParam(`line_items[${i}][price_data][unit_amount]`);
        const unit = int(pd, 'unit_amount', true)!;
        amount! += unit * quantity;
      });
      minimumAmount(amount, currency!, 'line_items[0][price_data][unit_amount]');
      if (p.currency !== undefined) throw invalidParam('currency', 'currency is taken from the line items in payment mode');
    } else {
      if (lineItems.length > 0) throw invalidParam('line_items', 'You cannot pass `line_items` in `setup` mode.');
      if (p.payment_intent_data !== undefined) throw invalidParam('payment_intent_data', 'You cannot pass `payment_intent_data` in `setup` mode.');
      // Dynamic payment methods need the currency to show the right ones.
      if (p.payment_method_types === undefined) currency = currencyOf(p, 'currency');
      else if (p.currency !== undefined) currency = currencyOf(p, 'currency');
      if (!customer) throw missingParam('customer');
    }
    const id = this.id('cs');
    const s: Obj = {
      id, object: 'checkout.session', livemode: this.livemode, created: this.now(), expires_at: this.now() + 86_400, mode, status: 'open', payment_status: mode === 'setup' ? 'no_payment_required' : 'unpaid',
      amount_total: amount, amount_subtotal: amount, currency, customer, client_reference_id: p.client_reference_id ?? null, metadata: p.metadata ?? {},
      success_url: p.success_url, cancel_url: p.cancel_url ?? null, url: `${this.url}/pay/${id}`, payment_intent: null, setup_intent: null,
      payment_intent_data: p.payment_intent_data ?? null, setup_intent_data: p.setup_intent_data ?? null,
    };
    this.sessions.set(id, s);
    const { payment_intent_data: _pid, setup_intent_data: _sid, ...visible } = s;
    return visible;
  }

  private createPaymentIntent(p: Params): Obj {
    check(p, SHAPES['payment_intent.create']!, '');
    const amount = int(p, 'amount', true)!;
    const currency = currencyOf(p, 'currency');
    minimumAmount(amount, currency, 'amount');
    const customer = this.customerOf(p);
    const pmId = p.payment_method === undefined ? null : String(p.payment_method);
    if (pmId) {
      const pm = this.paymentMethods.get(pmId);
      if (!pm) throw noSuch('PaymentMethod', pmId, 'payment_method');
      if (pm.customer !== customer) throw invalidParam('payment_method', `The provided PaymentMethod ${pmId} was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.`);
    }
    const offSession = p.off_session !== undefined && (p.off_session === 'true' || p.off_session === 'one_off' || p.off_session === 'recurring');
    const confirm = bool(p, 'confirm');
    if (p.off_session !== undefined && !confirm) throw invalidParam('off_session', 'You may only specify `off_session` when `confirm` is true.');
    const pi: Obj = {
      id: this.id('pi'), object: 'payment_intent', livemode: this.livemode, created: this.now(), amount, amount_received: 0, currency, customer,
      payment_method: pmId, status: pmId ? 'requires_confirmation' : 'requires_payment_method', metadata: p.metadata ?? {}, description: p.description ?? null,
      latest_charge: null, last_payment_error: null, next_action: null, client_secret: `${randomBytes(8).toString('hex')}_secret`,
    };
    this.paymentIntents.set(pi.id as string, pi);
    if (confirm) return this.confirm(pi, offSession);
    return pi;
  }

  /**
   * GET /v1/payment_intents: newest first, `limit` 1–100 (default 10), cursors `starting_after`/`ending_before`
   * (an id that must exist), `created` as an exact time or a range (gt, gte, lt, lte), `customer`.
   */
  private listPaymentIntents(p: Params): Obj {
    // `created` is an integer or a range object: checked here, the rest by its shape.
    const { created, ...rest } = p;
    check(rest, SHAPES['payment_intent.list']!, '');
    let range: Record<string, number> = {};
    if (typeof created === 'string') range = { gte: int({ created }, 'created', true)!, lte: int({ created }, 'created', true)! };
    else if (created !== undefined) {
      check(created, (SHAPES['payment_intent.list'] as Record<string, Shape>).created!, 'created');
      range = Object.fromEntries(Object.keys(created as Obj).map((k) => [k, int(created as Params, k, true)!]));
    }
    const limit = int(p, 'limit', false) ?? 10;
    if (limit < 1 || limit > 100) throw new StripeError(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', message: 'Invalid integer: limit must be between 1 and 100', param: 'limit' });
    if (p.starting_after !== undefined && p.ending_before !== undefined) {
      throw new StripeError(400, { type: 'invalid_request_error', message: 'You may only specify one of these parameters: ending_before, starting_after.' });
    }
    const customer = this.customerOf(p);
    const t = (pi: Obj) => pi.created as number;
    let all = [...this.paymentIntents.values()]
      .filter((pi) => this.isReadable(pi) && (!customer || pi.customer === customer)
        && (range.gt === undefined || t(pi) > range.gt) && (range.gte === undefined || t(pi) >= range.gte)
        && (range.lt === undefined || t(pi) < range.lt) && (range.lte === undefined || t(pi) <= range.lte))
      .reverse();
    const cursor = (p.starting_after ?? p.ending_before) as string | undefined;
    if (cursor !== undefined) {
      if (!this.paymentIntents.has(cursor)) throw noSuch('payment_intent', cursor, p.starting_after !== undefined ? 'starting_after' : 'ending_before');
      const at = all.findIndex((pi) => pi.id === cursor);
      all = p.starting_after !== undefined ? all.slice(at + 1) : all.slice(0, Math.max(at, 0)).slice(-limit);
    }
    const data = all.slice(0, limit).map((pi) => this.expand(pi, (p.expand as string[] | undefined)?.map((f) => f.replace(/^data\./, '')) ?? []));
    return { object: 'list', url: '/v1/payment_intents', has_more: all.length > limit, data };
  }

  private confirmPaymentIntent(id: string, p: Params): Obj {
    check(p, SHAPES['payment_intent.confirm']!, '');
    const pi = this.readable(this.paymentIntents.get(id), 'payment_intent', id);
    if (p.payment_method !== undefined) pi.payment_method = String(p.payment_method);
    if (pi.status === 'succeeded') {
      throw new StripeError(400, { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message: 'This PaymentIntent\'s status is succeeded, so it cannot be confirmed.', param: undefined });
    }
    return this.confirm(pi, p.off_session === 'true');
  }

  /** Charges the PaymentIntent's card: success, a decline, or (off-session) a card that needs authentication. */
  private confirm(pi: Obj, offSession: boolean): Obj {
    const pm = pi.payment_method ? this.paymentMethods.get(pi.payment_method as string) : undefined;
    if (!pm) throw missingParam('payment_method');
    if (offSession) this.offSessionConfirms.push({ id: pi.id as string, at: Date.now(), customer: String(pi.customer), amount: pi.amount as number });
    const fail = (code: string, message: string, declineCode?: string) => {
      const charge = declineCode ? this.makeCharge(pi, false) : null;
      pi.status = 'requires_payment_method';
      pi.latest_charge = charge?.id ?? null;
      pi.last_payment_error = { type: 'card_error', code, message, decline_code: declineCode, payment_method: this.publicPm(pm) };
      this.emit('payment_intent.payment_failed', pi);
      throw new StripeError(402, { type: 'card_error', code, decline_code: declineCode, message, payment_intent: { ...pi }, charge: charge?.id });
    };
    if (pm.card_number === CARD_DECLINED) fail('card_declined', 'Your card was declined.', 'generic_decline');
    if (pm.card_number === CARD_NEEDS_AUTHENTICATION && offSession) fail('authentication_required', 'Your card was declined. This transaction requires authentication.');
    const charge = this.makeCharge(pi, true);
    pi.status = 'succeeded';
    pi.amount_received = pi.amount;
    pi.latest_charge = charge.id;
    this.emit('charge.succeeded', charge);
    this.emit('payment_intent.succeeded', pi);
    return { ...pi };
  }

  private makeCharge(pi: Obj, paid: boolean): Obj {
    const id = this.id('ch');
    const c: Obj = {
      id, object: 'charge', livemode: this.livemode, created: this.now(), amount: pi.amount, amount_captured: paid ? pi.amount : 0, amount_refunded: 0, currency: pi.currency,
      customer: pi.customer, payment_intent: pi.id, payment_method: pi.payment_method, paid, captured: paid, status: paid ? 'succeeded' : 'failed',
      refunded: false, disputed: false, metadata: pi.metadata, receipt_url: paid ? `${this.url}/receipts/${id}` : null,
    };
    this.charges.set(id, c);
    return c;
  }

  private createRefund(p: Params): Obj {
    check(p, SHAPES['refund.create']!, '');
    let charge: Obj | undefined;
    if (p.charge !== undefined) charge = this.readable(this.charges.get(String(p.charge)), 'charge', String(p.charge), 'charge');
    else if (p.payment_intent !== undefined) {
      const pi = this.readable(this.paymentIntents.get(String(p.payment_intent)), 'payment_intent', String(p.payment_intent), 'payment_intent');
      charge = pi.latest_charge ? this.charges.get(pi.latest_charge as string) : undefined;
    } else throw missingParam('charge');
    if (!charge || !charge.paid) throw noSuch('charge', String(p.charge ?? p.payment_intent), 'charge');
    const left = (charge.amount as number) - (charge.amount_refunded as number);
    const amount = int(p, 'amount', false) ?? left;
    if (amount > left) {
      throw new StripeError(400, { type: 'invalid_request_error', code: 'amount_too_large', message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, param: 'amount' });
    }
    if (charge.disputed) throw new StripeError(400, { type: 'invalid_request_error', code: 'charge_disputed', message: `Charge ${String(charge.id)} has been charged back; cannot issue a refund.` });
    const r: Obj = { id: this.id('re'), object: 'refund', amount, currency: charge.currency, charge: charge.id, payment_intent: charge.payment_intent, status: 'succeeded', created: this.now(), metadata: p.metadata ?? {}, reason: p.reason ?? null };
    this.refunds.set(r.id as string, r);
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    this.emit('charge.refunded', charge);
    return r;
  }

  /** The cardholder's bank disputes a charge (what Stripe's dispute test cards do). */
  openDispute(chargeId: string, amount?: number): Obj {
    const charge = this.charges.get(chargeId);
    if (!charge) throw new Error(`no charge ${chargeId}`);
    charge.disputed = true;
    const d: Obj = { id: this.id('dp'), object: 'dispute', amount: amount ?? charge.amount, currency: charge.currency, charge: chargeId, payment_intent: charge.payment_intent, status: 'needs_response', reason: 'fraudulent', created: this.now(), livemode: this.livemode };
    this.disputes.set(d.id as string, d);
    this.emit('charge.dispute.created', d);
    return d;
  }

  closeDispute(disputeId: string, outcome: 'won' | 'lost'): Obj {
    const d = this.disputes.get(disputeId);
    if (!d) throw new Error(`no dispute ${disputeId}`);
    d.status = outcome;
    // A won dispute no longer blocks refunds of what is left of the charge; a lost one was charged back, and
    // Stripe refuses its refund (charge_disputed) for good.
    const charge = this.charges.get(d.charge as string);
    if (charge && outcome === 'won') charge.disputed = false;
    this.emit('charge.dispute.closed', d);
    return d;
  }

  /** The hosted Checkout page: a form with a card number; submitting it completes the session and returns to success_url. */
  private async hostedPage(req: FakeRequest): Promise<Reply> {
    const id = req.path.slice('/pay/'.length);
    const s = this.sessions.get(id);
    if (!s) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>Not found</title><p>This Checkout Session does not exist.</p>' };
    if (req.method === 'GET') {
      if (s.status !== 'open') return { status: 410, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>Done</title><p>This Checkout Session is no longer open.</p>' };
      const what = s.mode === 'payment' ? `Pay ${((s.amount_total as number) / 100).toFixed(2)} ${String(s.currency).toUpperCase()}` : 'Save card';
      return {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!doctype html><html lang="en"><head><title>Checkout (fake Stripe)</title></head><body><main><h1>${what}</h1>
<form method="post" action="/pay/${id}"><label for="card">Card number</label> <input id="card" name="card" value="${CARD_OK}" inputmode="numeric">
<button type="submit" id="submit">${what}</button></form></main></body></html>`,
      };
    }
    const card = new URLSearchParams(req.body.toString('utf8')).get('card') ?? CARD_OK;
    const result = this.completeSession(id, card);
    if ('error' in result) return { status: 402, headers: { 'content-type': 'text/html' }, body: `<!doctype html><title>Declined</title><p>${result.error}</p>` };
    const back = String(s.success_url).replace('{CHECKOUT_SESSION_ID}', id);
    return { status: 303, headers: { location: back }, body: '' };
  }

  /** What the customer does on the hosted page: pays (payment mode) or saves the card (setup mode). */
  completeSession(id: string, card: string = CARD_OK): { session: Obj } | { error: string } {
    const s = this.sessions.get(id);
    if (!s || s.status !== 'open') return { error: 'This Checkout Session is no longer open.' };
    let customer = s.customer as string | null;
    if (!customer) {
      customer = this.createCustomer({}).id as string;
      s.customer = customer;
    }
    const pm = { id: this.id('pm'), object: 'payment_method', type: 'card', customer, created: this.now(), livemode: this.livemode, card_number: card };
    this.paymentMethods.set(pm.id, pm);
    if (s.mode === 'setup') {
      const si: Obj = { id: this.id('seti'), object: 'setup_intent', status: 'succeeded', customer, payment_method: pm.id, usage: 'off_session', metadata: (s.setup_intent_data as Obj | null)?.metadata ?? {}, created: this.now(), livemode: this.livemode };
      this.setupIntents.set(si.id as string, si);
      s.setup_intent = si.id;
      s.status = 'complete';
      this.emit('setup_intent.succeeded', si);
      this.emit('checkout.session.completed', this.visibleSession(s));
      return { session: s };
    }
    if (card === CARD_DECLINED) return { error: 'Your card was declined.' };
    const pid = (s.payment_intent_data as Obj | null) ?? {};
    const pi: Obj = {
      id: this.id('pi'), object: 'payment_intent', livemode: this.livemode, created: this.now(), amount: s.amount_total, amount_received: 0, currency: s.currency, customer,
      payment_method: pm.id, status: 'requires_confirmation', metadata: pid.metadata ?? {}, description: pid.description ?? null, latest_charge: null, last_payment_error: null, next_action: null,
    };
    this.paymentIntents.set(pi.id as string, pi);
    s.payment_intent = pi.id;
    // The customer authenticated on the page (3-D Secure, if the card asks for it): the payment goes through.
    const charge = this.makeCharge(pi, true);
    pi.status = 'succeeded';
    pi.amount_received = pi.amount;
    pi.latest_charge = charge.id;
    s.status = 'complete';
    s.payment_status = 'paid';
    this.emit('charge.succeeded', charge);
    this.emit('payment_intent.succeeded', pi);
    this.emit('checkout.session.completed', this.visibleSession(s));
    return { session: s };
  }

  private visibleSession(s: Obj): Obj {
    const { payment_intent_data: _p, setup_intent_data: _s, ...visible } = s;
    return visible;
  }

  /**
   * A paid PaymentIntent and its charge that this key cannot read: another account's (`account`), or of the key's
   * other mode (`livemode`). Their events (`emit`) still reach an endpoint wired to that account or mode.
   */
  paymentElsewhere(opts: { account?: string; livemode?: boolean; amount?: number; currency?: string; metadata?: Record<string, string> }): { paymentIntent: Obj; charge: Obj } {
    const amount = opts.amount ?? 1000;
    const livemode = opts.livemode ?? this.livemode;
    const pi: Obj = {
      id: this.id('pi'), object: 'payment_intent', livemode, created: this.now(), amount, amount_received: amount, currency: opts.currency ?? 'usd', customer: null,
      payment_method: null, status: 'succeeded', metadata: opts.metadata ?? {}, description: null, latest_charge: null, last_payment_error: null, next_action: null,
    };
    const charge = this.makeCharge(pi, true);
    charge.livemode = livemode;
    pi.latest_charge = charge.id;
    this.paymentIntents.set(pi.id as string, pi);
    for (const o of [pi, charge]) this.accountOf.set(o.id as string, opts.account ?? this.account);
    return { paymentIntent: pi, charge };
  }

  /**
   * Makes an event of the object as it is now (in the object's mode), keeps it, and (autoDeliver) sends it to every
   * endpoint. `account`: the event comes from that connected account, as Stripe sends them to a Connect endpoint.
   */
  emit(type: string, object: Obj, opts: { account?: string } = {}): Obj {
    const event: Obj = {
      id: this.id('evt'), object: 'event', api_version: STRIPE_API_VERSION, created: this.now(), livemode: object.livemode ?? this.livemode, ...(opts.account ? { account: opts.account } : {}), pending_webhooks: this.endpoints.length,
      request: { id: null, idempotency_key: null }, type, data: { object: structuredClone(object) },
    };
    this.events.push(event);
    if (this.autoDeliver) for (const url of this.endpoints) this.track(this.deliverWithRetries(event, url));
    return event;
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pendingDeliveries.add(p);
    void p.finally(() => this.pendingDeliveries.delete(p)).catch(() => {});
    return p;
  }

  private async deliverWithRetries(event: Obj, url: string): Promise<void> {
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      const status = await this.deliver(event, url);
      if (status >= 200 && status < 300) return;
      await new Promise((r) => setTimeout(r, this.retryDelayMs * (attempt + 1)));
    }
  }

  /** One signed POST of an event to an endpoint (as Stripe sends it); the status, or 0 if the connection failed. */
  async deliver(event: Obj, url: string, opts: { secret?: string; timestamp?: number; signature?: string | null } = {}): Promise<number> {
    const payload = JSON.stringify(event, null, 2);
    const header = opts.signature !== undefined
      ? opts.signature
      : Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? this.webhookSecret, ...(opts.timestamp ? { timestamp: opts.timestamp } : {}) });
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
    if (header !== null) headers['stripe-signature'] = header;
    let status = 0;
    try {
      const res = await fetch(url, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(30_000) });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 0;
    }
    this.deliveries.push({ url, status });
    return status;
  }

  /** The events of a type, oldest first. */
  eventsOf(type: string): Obj[] {
    return this.events.filter((e) => e.type === type);
  }
}
