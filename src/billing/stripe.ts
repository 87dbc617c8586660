import type { Logger } from 'pino';
import { Type, type Static } from '@sinclair/typebox';
import Stripe from 'stripe';
import type { Config, StripeConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db, Queryable } from '../store/db.js';
import {
  addPaymentRefund, claimAutoTopup, lockBillingAccount, closeDispute, insertAdjustment, insertBillingAccount, insertPayment, isBillingPaused, markPaymentCredited,
  markPaymentUnpaid, recordAutoTopupFailure, resetAutoTopupFailures, selectAutoTopupCandidates, selectBillingAccount, selectBillingHistory,
  selectPayment, selectPaymentByCharge, selectPaymentForUpdate, selectPaymentByCheckoutSession, selectStaleAutoTopups, deferAutoTopupRecheck, updateAutoTopup, updatePaymentCheckoutSession,
  updatePaymentIntentId, updateSavedPaymentMethod,
  type BillingAccountRow, type PaymentRow,
} from '../store/billing.js';
import { insertEvent } from '../store/events.js';
import { pauseIfRunning, updateOrganizationPaused } from '../store/organizations.js';
import { adjust, getWallet, topUp, type Wallet } from './credits.js';
import { recordAudit, systemOrigin, type AuditOrigin } from '../domain/audit.js';

/** What Stripe's events and the return check move is recorded as the system's, named after its source. */
const STRIPE = systemOrigin('stripe');

/**
 * Money in: credits bought through Stripe (docs/contract-addenda.md, "Buying credits").
 *
 * Nothing here trusts an event's body: a webhook is verified with the stripe library's signature check, and then
 * only its object's id is used; the object is read again from Stripe's API, and only what the API says is paid is
 * credited. A payment is credited in one transaction that marks its row credited (once: the row's lock and its
 * `credited_at IS NULL` condition) and writes one ledger row (whose reference is unique), so repeated, reordered
 * or concurrent events, on any number of nodes, credit it once.
 */

/** The Stripe API version mmgen is written against; the library sends it with every call. */
export const STRIPE_API_VERSION = '2026-10-28.endive' as const;

export function createStripeClient(c: StripeConfig): Stripe {
  return new Stripe(c.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(c.api ? { host: c.api.host, port: c.api.port, protocol: c.api.protocol } : {}),
  });
}

/** What the Stripe use cases reach: the configuration, the database, the log, and the Stripe client (undefined: not configured). */
export interface StripePorts {
  config: Pick<Config, 'stripe' | 'publicUrl'>;
  db: Db;
  log: Logger;
  stripe: Stripe | undefined;
}

interface Ready {
  c: StripeConfig;
  stripe: Stripe;
}

function ready(p: StripePorts): Ready {
  if (!p.config.stripe || !p.stripe) throw new ApiError('feature_not_available', 'Buying credits is not set up on this instance (the operator has not configured Stripe); ask the operator for a top-up.');
  return { c: p.config.stripe, stripe: p.stripe };
}

/**
 * A Stripe call from a request: Stripe's refusal or absence is answered as the upstream's (502), never as the
 * client's bad input, and a card's decline as what it is.
 */
async function callStripe<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof Stripe.errors.StripeError) throw new ApiError('upstream_error', `Stripe refused to ${what}: ${err.message}`);
    throw err;
  }
}

const month = (d = new Date()) => d.toISOString().slice(0, 7);

/** The organization's Stripe Customer, created on first use (two racing requests may each create one; the first recorded is kept). */
async function account(p: StripePorts, s: Ready, organizationId: string): Promise<BillingAccountRow> {
  const existing = await selectBillingAccount(p.db, organizationId);
  if (existing) return existing;
  const customer = await callStripe('create the customer', () => s.stripe.customers.create(
    { metadata: { organization_id: organizationId }, description: `mmgen organization ${organizationId}` },
    { idempotencyKey: `mmgen-customer-${organizationId}` },
  ));
  return insertBillingAccount(p.db, organizationId, customer.id);
}

export interface CheckoutStarted {
  object: 'checkout_session';
  id: string;
  payment_id: string | null;
  url: string;
  amount: number | null;
  currency: string;
  credits: number | null;
}

/** A Checkout Session for `amount` (smallest currency unit) of credits; the credits land when Stripe says it is paid. */
export async function startCheckout(p: StripePorts, organizationId: string, amount: number, returnUrl: string | undefined): Promise<CheckoutStarted> {
  const s = ready(p);
  if (amount < s.c.minAmount || amount > s.c.maxAmount) {
    throw new ApiError('parameter_invalid', `amount must be from ${s.c.minAmount} to ${s.c.maxAmount} (${s.c.currency}, smallest unit).`, 'amount');
  }
  const acct = await account(p, s, organizationId);
  const paymentId = newId('pay');
  const credits = amount * s.c.creditsPerUnit;
  await insertPayment(p.db, { id: paymentId, organizationId, kind: 'checkout', amount, currency: s.c.currency, credits });
  const back = returnUrl ?? `${p.config.publicUrl}/dashboard/billing`;
  const metadata = { mmgen_payment_id: paymentId, organization_id: organizationId };
  const session = await callStripe('start the Checkout Session', () => s.stripe.checkout.sessions.create(
    {
      mode: 'payment',
      customer: acct.stripe_customer_id,
      client_reference_id: organizationId,
      line_items: [{ quantity: 1, price_data: { currency: s.c.currency, unit_amount: amount, product_data: { name: `${credits.toLocaleString('en-US')} mmgen credits` } } }],
      metadata,
      payment_intent_data: { metadata },
      success_url: withQuery(back, 'checkout_session_id={CHECKOUT_SESSION_ID}'),
      cancel_url: withQuery(back, 'checkout=canceled'),
    },
    { idempotencyKey: `mmgen-checkout-${paymentId}` },
  ));
  await updatePaymentCheckoutSession(p.db, paymentId, session.id);
  return { object: 'checkout_session', id: session.id, payment_id: paymentId, url: session.url ?? '', amount, currency: s.c.currency, credits };
}

/** A setup-mode Checkout Session that saves a card for automatic top-ups. */
export async function startCardSetup(p: StripePorts, organizationId: string, returnUrl: string | undefined): Promise<CheckoutStarted> {
  const s = ready(p);
  const acct = await account(p, s, organizationId);
  const back = returnUrl ?? `${p.config.publicUrl}/dashboard/billing`;
  const session = await callStripe('start the Checkout Session', () => s.stripe.checkout.sessions.create({
    mode: 'setup',
    currency: s.c.currency,
    customer: acct.stripe_customer_id,
    client_reference_id: organizationId,
    metadata: { organization_id: organizationId },
    setup_intent_data: { metadata: { organization_id: organizationId } },
    success_url: withQuery(back, 'checkout_session_id={CHECKOUT_SESSION_ID}'),
    cancel_url: withQuery(back, 'checkout=canceled'),
  }));
  return { object: 'checkout_session', id: session.id, payment_id: null, url: session.url ?? '', amount: null, currency: s.c.currency, credits: null };
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

const idOf = (x: string | { id: string } | null | undefined): string | null => (x == null ? null : typeof x === 'string' ? x : x.id);

/**
 * The return page's check: reads the session from Stripe and credits it if paid, so the balance shows the
 * credits at once, before (or without) the webhook. The same crediting as the webhook's: whichever is first credits.
 */
export async function syncCheckoutSession(p: StripePorts, organizationId: string, sessionId: string): Promise<{ status: string; payment: PaymentRow | null; wallet: Wallet }> {
  const s = ready(p);
  // Another organization's session answers exactly as one that never existed.
  const notFound = () => new ApiError('resource_not_found', `No checkout session ${sessionId} in this organization.`);
  let status: string;
  try {
    status = await applySession(p, s, sessionId, organizationId);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) throw notFound();
    if (err instanceof Stripe.errors.StripeError) throw new ApiError('upstream_error', `Stripe could not be read: ${err.message}`);
    throw err;
  }
  if (status === 'not ours') throw notFound();
  const payment = (await selectPaymentByCheckoutSession(p.db, organizationId, sessionId)) ?? null;
  return { status, payment, wallet: await getWallet(p.db, organizationId) };
}

/** Verifies a webhook with the stripe library and applies it; what it did, for the log. */
export async function receiveStripeEvent(p: StripePorts, raw: Buffer, signature: string | undefined): Promise<{ id: string; type: string; outcome: string }> {
  const s = ready(p);
  if (!signature) throw new ApiError('signature_invalid', 'The Stripe-Signature header is missing.');
  let event: Stripe.Event;
  try {
    // Tolerance 300 s: Stripe's default; an older (replayed) signature is refused.
    event = await Stripe.webhooks.constructEventAsync(raw, signature, s.c.webhookSecret, 300);
  } catch (err) {
    throw new ApiError('signature_invalid', `The Stripe signature does not verify: ${(err as Error).message}`);
  }
  const foreign = foreignEvent(s.c, event);
  if (foreign) {
    // Acknowledged (2xx), never read: a refusal would only make Stripe send it again for days, and no answer of
    // ours makes it this account's. Logged, since it means an endpoint or secret wired to the wrong account or mode.
    p.log.warn({ stripeEvent: event.id, type: event.type, livemode: event.livemode, account: event.account }, `stripe event ignored: ${foreign}`);
    return { id: event.id, type: event.type, outcome: `ignored: ${foreign}` };
  }
  const object = (event.data as { object: { id?: string } }).object;
  const id = typeof object.id === 'string' ? object.id : '';
  // Stripe unreachable or refusing: 502, so that Stripe sends the event again later.
  const outcome = await callStripe('answer a read of the event\'s object', async () => {
    try {
      return await applyEvent(p, s, event.type, id);
    } catch (err) {
      // Stripe answered, and the object is not this account's (or mode's): sending the event again changes nothing.
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404 && err.code === 'resource_missing') {
        p.log.warn({ stripeEvent: event.id, type: event.type, err: err.message }, 'stripe event ignored: its object is not in this account');
        return 'ignored: not in this account';
      }
      throw err;
    }
  });
  p.log.info({ stripeEvent: event.id, type: event.type, outcome }, 'stripe event');
  return { id: event.id, type: event.type, outcome };
}

/**
 * Why an event is not this configuration's, from its envelope alone: one of the other mode than the key's (a key
 * reads only its own mode's objects), or one from a connected account (`account` is set only on those; mmgen does
 * not use Connect). Undefined: it may be ours, and its object is read.
 */
function foreignEvent(c: StripeConfig, event: Stripe.Event): string | undefined {
  if (event.livemode !== c.livemode) return `${event.livemode ? 'live' : 'test'}-mode event, ${c.livemode ? 'live' : 'test'}-mode key`;
  if (event.account) return `event of the connected account ${event.account}`;
  return undefined;
}

async function applyEvent(p: StripePorts, s: Ready, type: string, id: string): Promise<string> {
  let outcome = 'ignored';
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      outcome = await applySession(p, s, id, null);
      break;
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled':
      outcome = await applyPaymentIntent(p, s, id);
      break;
    case 'charge.refunded':
      outcome = await applyRefunds(p, s, id);
      break;
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed':
      outcome = await applyDispute(p, s, id);
      break;
  }
  return outcome;
}

/** A Checkout Session as Stripe's API has it now: a paid payment is credited, a saved card recorded. */
async function applySession(p: StripePorts, s: Ready, sessionId: string, expectOrganization: string | null): Promise<string> {
  const session = await s.stripe.checkout.sessions.retrieve(sessionId, { expand: ['payment_intent.latest_charge', 'setup_intent'] });
  const organizationId = session.metadata?.organization_id ?? null;
  if (!organizationId || (expectOrganization && organizationId !== expectOrganization)) return 'not ours';
  const acct = await selectBillingAccount(p.db, organizationId);
  if (!acct || idOf(session.customer) !== acct.stripe_customer_id) return 'not ours';
  if (session.mode === 'setup') {
    const si = session.setup_intent;
    if (session.status !== 'complete' || !si || typeof si === 'string' || si.status !== 'succeeded') return session.status ?? 'open';
    const pm = idOf(si.payment_method);
    if (!pm || idOf(si.customer) !== acct.stripe_customer_id) return 'no card';
    await p.db.tx(async (q) => {
      // A card saved again (the event redelivered, the return check after it) changes nothing and records nothing.
      if (!(await updateSavedPaymentMethod(q, organizationId, pm))) return;
      await recordAudit(q, {
        ...STRIPE, organizationId, action: 'billing.payment_method_saved', target: { type: 'organization', id: organizationId },
        before: { payment_method_saved: acct.payment_method_id !== null },
        after: { payment_method_saved: true, payment_method: pm },
      });
    });
    return 'card saved';
  }
  const paymentId = session.metadata?.mmgen_payment_id;
  if (!paymentId) return 'not ours';
  const payment = await selectPayment(p.db, paymentId);
  if (!payment || payment.organization_id !== organizationId) return 'not ours';
  if (session.status !== 'complete' || session.payment_status !== 'paid') return `unpaid (${session.payment_status})`;
  if (session.amount_total !== payment.amount || session.currency !== payment.currency) return 'amount mismatch';
  const pi = session.payment_intent;
  if (!pi || typeof pi === 'string') return 'no payment';
  return credit(p, payment, pi);
}

async function applyPaymentIntent(p: StripePorts, s: Ready, paymentIntentId: string): Promise<string> {
  const pi = await s.stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] });
  const paymentId = pi.metadata?.mmgen_payment_id;
  if (!paymentId) return 'not ours';
  const payment = await selectPayment(p.db, paymentId);
  if (!payment || payment.organization_id !== pi.metadata?.organization_id) return 'not ours';
  const acct = await selectBillingAccount(p.db, payment.organization_id);
  if (!acct || idOf(pi.customer) !== acct.stripe_customer_id) return 'not ours';
  return settleIntent(p, payment, pi);
}

/** What Stripe's API says of a payment's PaymentIntent, applied: credited once if it succeeded, an automatic one's failure counted once. */
async function settleIntent(p: StripePorts, payment: PaymentRow, pi: Stripe.PaymentIntent): Promise<string> {
  if (pi.status === 'succeeded') return credit(p, payment, pi);
  // A Checkout payment whose card failed stays open: the customer may try another card on the page.
  if (payment.kind === 'auto_topup' && (pi.status === 'requires_payment_method' || pi.status === 'canceled' || pi.status === 'requires_action')) {
    const e = pi.last_payment_error;
    return (await autoTopupFailed(p, payment, pi.id, e?.code ?? pi.status, e?.message ?? `payment ${pi.status}`)) ? 'failure recorded' : 'failure known';
  }
  return `unpaid (${pi.status})`;
}

/** Credits a payment that Stripe says succeeded: once, in the transaction that marks its row. */
async function credit(p: StripePorts, payment: PaymentRow, pi: Stripe.PaymentIntent): Promise<string> {
  if (pi.status !== 'succeeded' || pi.amount_received < payment.amount || pi.currency !== payment.currency) return `unpaid (${pi.status})`;
  const charge = pi.latest_charge && typeof pi.latest_charge !== 'string' ? pi.latest_charge : null;
  const done = await p.db.tx(async (q) => {
    await lockBillingAccount(q, payment.organization_id);
    const row = await markPaymentCredited(q, payment.id, { paymentIntentId: pi.id, chargeId: idOf(pi.latest_charge), receiptUrl: charge?.receipt_url ?? null });
    if (!row) return false;
    const wallet = await topUp(q, { organizationId: row.organization_id, credits: row.credits, reference: `stripe-payment:${row.id}`, note: `Stripe payment ${pi.id}` });
    await recordAudit(q, {
      ...STRIPE, organizationId: row.organization_id, action: 'billing.payment_credited', target: { type: 'payment', id: row.id },
      before: null, after: { kind: row.kind, amount: row.amount, currency: row.currency, credits: row.credits, payment_intent: pi.id, balance_credits: wallet.balance_credits },
    });
    if (row.kind === 'auto_topup') await resetAutoTopupFailures(q, row.organization_id);
    await unlockIfPaid(q, row.organization_id, wallet);
    return true;
  });
  return done ? 'credited' : 'already credited';
}

/** A payment that brings a wallet the refunds or disputes took below zero back to zero or more lifts their pause, in the same transaction. */
async function unlockIfPaid(q: Queryable, organizationId: string, wallet: Wallet): Promise<void> {
  if (wallet.balance_credits >= 0 && (await isBillingPaused(q, organizationId))) {
    await updateOrganizationPaused(q, organizationId, false, null);
    await recordAudit(q, {
      ...STRIPE, organizationId, action: 'organization.unpaused', target: { type: 'organization', id: organizationId },
      before: { paused: true, pause_reason: { kind: 'billing' } }, after: { paused: false, balance_credits: wallet.balance_credits },
    });
  }
}

/** A removal that leaves the balance below zero pauses the organization (kind billing): it accepts no new work. */
async function lockIfNegative(q: Queryable, organizationId: string, wallet: Wallet): Promise<void> {
  if (wallet.balance_credits < 0) {
    await pauseIfRunning(q, organizationId, { kind: 'billing', balance_credits: wallet.balance_credits });
  }
}

/** Credits in proportion to an amount of a payment, never more than it bought. */
function creditsFor(payment: PaymentRow, amount: number): number {
  return Math.min(payment.credits, Math.floor((amount * payment.credits) / payment.amount));
}

/**
 * The credited payment a charge paid. Stripe does not order events: a refund's or a dispute's may come before the
 * payment's own (its delivery failed and waits for a retry), when the payment row does not know its charge yet.
 * The payment is then credited first, from what the API says of the charge's PaymentIntent (once, as any event
 * credits it), so that what is taken back was given, and nothing taken back is acknowledged and forgotten.
 */
async function creditedPaymentOfCharge(p: StripePorts, s: Ready, chargeId: string, paymentIntentId: string | null): Promise<PaymentRow | undefined> {
  const payment = await selectPaymentByCharge(p.db, chargeId, paymentIntentId);
  if (payment?.credited_at || !paymentIntentId) return payment?.credited_at ? payment : undefined;
  await applyPaymentIntent(p, s, paymentIntentId);
  const after = await selectPaymentByCharge(p.db, chargeId, paymentIntentId);
  return after?.credited_at ? after : undefined;
}

async function applyRefunds(p: StripePorts, s: Ready, chargeId: string): Promise<string> {
  const charge = await s.stripe.charges.retrieve(chargeId);
  const payment = await creditedPaymentOfCharge(p, s, charge.id, idOf(charge.payment_intent));
  if (!payment) return 'not ours';
  const refunds = await s.stripe.refunds.list({ charge: charge.id, limit: 100 });
  let moved = 0;
  for (const refund of refunds.data) {
    if (refund.status !== 'succeeded') continue;
    const did = await p.db.tx(async (q) => {
      // The payment row is locked, so two refunds of it are counted one after the other.
      const current = await selectPaymentForUpdate(q, payment.id);
      if (!current) return false;
      // Cumulative: a full refund takes back exactly what the payment credited, whatever the rounding of partial ones.
      const credits = creditsFor(current, current.refunded_amount + refund.amount) - current.refunded_credits;
      const row = await insertAdjustment(q, {
        id: newId('adj'), organizationId: current.organization_id, paymentId: current.id, kind: 'refund', stripeId: refund.id,
        amount: refund.amount, credits, status: 'succeeded',
      });
      if (!row) return false;
      await addPaymentRefund(q, current.id, refund.amount, credits);
      if (credits > 0) {
        const wallet = await adjust(q, { organizationId: current.organization_id, credits: -credits, reference: `stripe-refund:${refund.id}`, note: `Stripe refund ${refund.id} of ${charge.id}` });
        if (wallet) await lockIfNegative(q, current.organization_id, wallet);
        await recordAudit(q, {
          ...STRIPE, organizationId: current.organization_id, action: 'billing.refunded', target: { type: 'payment', id: current.id },
          before: null, after: { refund: refund.id, amount: refund.amount, credits: -credits, balance_credits: wallet?.balance_credits ?? null },
        });
      }
      return true;
    });
    if (did) moved++;
  }
  return moved > 0 ? `refunded (${moved})` : 'refunds known';
}

async function applyDispute(p: StripePorts, s: Ready, disputeId: string): Promise<string> {
  const dispute = await s.stripe.disputes.retrieve(disputeId);
  const payment = await creditedPaymentOfCharge(p, s, idOf(dispute.charge) ?? '', idOf(dispute.payment_intent));
  if (!payment) return 'not ours';
  // Inquiries and warnings (no money held by the bank yet) change nothing.
  if (dispute.status.startsWith('warning_')) return 'warning';
  return p.db.tx(async (q) => {
    const current = (await selectPaymentForUpdate(q, payment.id))!;
    const credits = Math.min(creditsFor(current, dispute.amount), current.credits - current.refunded_credits);
    let outcome = 'dispute known';
    const opened = await insertAdjustment(q, {
      id: newId('adj'), organizationId: current.organization_id, paymentId: current.id, kind: 'dispute', stripeId: dispute.id,
      amount: dispute.amount, credits, status: 'open',
    });
    if (opened && credits > 0) {
      const wallet = await adjust(q, { organizationId: current.organization_id, credits: -credits, reference: `stripe-dispute:${dispute.id}`, note: `Stripe dispute ${dispute.id} held` });
      if (wallet) await lockIfNegative(q, current.organization_id, wallet);
      await recordAudit(q, {
        ...STRIPE, organizationId: current.organization_id, action: 'billing.dispute_opened', target: { type: 'payment', id: current.id },
        before: null, after: { dispute: dispute.id, amount: dispute.amount, credits: -credits, balance_credits: wallet?.balance_credits ?? null },
      });
      outcome = 'held';
    }
    if (dispute.status === 'won' || dispute.status === 'lost') {
      const closed = await closeDispute(q, dispute.id, dispute.status);
      if (closed && dispute.status === 'won' && closed.credits > 0) {
        const wallet = await adjust(q, { organizationId: current.organization_id, credits: closed.credits, reference: `stripe-dispute-won:${dispute.id}`, note: `Stripe dispute ${dispute.id} won` });
        if (wallet) await unlockIfPaid(q, current.organization_id, wallet);
      }
      if (closed) {
        outcome = `closed (${dispute.status})`;
        await recordAudit(q, {
          ...STRIPE, organizationId: current.organization_id, action: 'billing.dispute_closed', target: { type: 'payment', id: current.id },
          before: { dispute: dispute.id, status: 'open' }, after: { dispute: dispute.id, status: dispute.status, credits_returned: dispute.status === 'won' ? closed.credits : 0 },
        });
      }
    }
    return outcome;
  });
}

/**
 * A failed automatic payment, once per payment: counted, and told to the owner (billing.auto_topup_failed). One
 * that needs the customer's action (3-D Secure) stops auto top-up at once: it is never retried off-session.
 */
async function autoTopupFailed(p: StripePorts, payment: PaymentRow, paymentIntentId: string | null, code: string, message: string, status?: 'canceled'): Promise<boolean> {
  const c = p.config.stripe!;
  const needsAction = code === 'authentication_required' || code === 'requires_action';
  return p.db.tx(async (q) => {
    await lockBillingAccount(q, payment.organization_id);
    const row = await markPaymentUnpaid(q, payment.id, status ?? (needsAction ? 'requires_action' : 'failed'), { paymentIntentId, message });
    if (!row) return false;
    const after = await recordAutoTopupFailure(q, row.organization_id, message, c.autoTopupMaxFailures, needsAction);
    await recordAudit(q, {
      ...STRIPE, organizationId: row.organization_id, action: 'billing.auto_topup_failed', target: { type: 'payment', id: row.id },
      before: null,
      after: { amount: row.amount, currency: row.currency, credits: row.credits, reason: code, requires_action: needsAction, consecutive_failures: after?.failures ?? 0, auto_topup_stopped: after?.stopped ?? false },
    });
    await insertEvent(q, {
      id: newId('evt'), organizationId: row.organization_id, mode: 'live', type: 'billing.auto_topup_failed',
      data: {
        organization_id: row.organization_id, payment_id: row.id, amount: row.amount, currency: row.currency, credits: row.credits,
        reason: code, message, requires_action: needsAction, consecutive_failures: after?.failures ?? 0, auto_topup_stopped: after?.stopped ?? false,
      },
    });
    return true;
  });
}

/**
 * Starts an automatic top-up if one is due: the claim (one statement) checks every limit and records the
 * payment as in flight, so at most one runs per organization across nodes and the month's cap is never passed.
 * The payment is confirmed off-session with the idempotency key of its row.
 */
export async function runAutoTopup(p: StripePorts, organizationId: string, now = new Date()): Promise<'none' | 'credited' | 'failed' | 'pending'> {
  if (!p.config.stripe || !p.stripe) return 'none';
  const s = ready(p);
  const paymentId = newId('pay');
  const claim = await p.db.tx(async (q) => {
    if (!(await lockBillingAccount(q, organizationId))) return undefined;
    return claimAutoTopup(q, { id: paymentId, organizationId, period: month(now), currency: s.c.currency, creditsPerUnit: s.c.creditsPerUnit });
  });
  if (!claim) return 'none';
  const payment = (await selectPayment(p.db, paymentId))!;
  let pi: Stripe.PaymentIntent;
  try {
    pi = await s.stripe.paymentIntents.create(
      {
        amount: claim.amount, currency: s.c.currency, customer: claim.customer, payment_method: claim.paymentMethod, off_session: true, confirm: true,
        metadata: { mmgen_payment_id: paymentId, organization_id: organizationId }, description: 'mmgen automatic top-up',
      },
      { idempotencyKey: `mmgen-auto-topup-${paymentId}` },
    );
  } catch (err) {
    if (err instanceof Stripe.errors.StripeCardError) {
      await autoTopupFailed(p, payment, idOf(err.payment_intent), err.code ?? 'card_error', err.message);
      return 'failed';
    }
    if (err instanceof Stripe.errors.StripeInvalidRequestError) {
      await autoTopupFailed(p, payment, null, err.code ?? 'invalid_request', err.message);
      return 'failed';
    }
    // No answer: the payment stays in flight (blocking another) until its webhook, or settleStaleAutoTopups, settles it.
    p.log.warn({ err, paymentId, organizationId }, 'automatic top-up: no answer from Stripe; left in flight');
    return 'pending';
  }
  if (pi.status === 'succeeded') {
    const full = await s.stripe.paymentIntents.retrieve(pi.id, { expand: ['latest_charge'] });
    await credit(p, payment, full);
    return 'credited';
  }
  if (pi.status === 'requires_action' || pi.status === 'requires_payment_method' || pi.status === 'canceled') {
    await autoTopupFailed(p, payment, pi.id, pi.status === 'requires_action' ? 'authentication_required' : (pi.last_payment_error?.code ?? pi.status), pi.last_payment_error?.message ?? `payment ${pi.status}`);
    return 'failed';
  }
  // Processing: its event settles it, or, if none comes, the sweep reads it back by this id.
  await updatePaymentIntentId(p.db, paymentId, pi.id);
  return 'pending';
}

/**
 * Settles the automatic payments that stayed pending past `autoTopupSettleAfterMs`: their create call got no
 * answer, or the PaymentIntent was still processing, and no event came. Each is read back from Stripe's API (by
 * its PaymentIntent's id, or, when the answer never came, by finding the Customer's PaymentIntent whose metadata
 * names the payment) and settled as its event would: credited once if it succeeded, its failure counted once (the
 * in-flight slot freed) if it failed. A payment Stripe has no PaymentIntent for never reached it: it is canceled
 * and counted as a failure. One still processing stays pending, and is read again 1, 2, 4, … minutes later, at most
 * an hour (deferAutoTopupRecheck); the most due are read first. Whatever runs at the same time (the event, this
 * sweep on another node) is settled once by the payment row's conditions (credited_at IS NULL, status pending).
 */
export async function settleStaleAutoTopups(p: StripePorts, now = new Date()): Promise<{ id: string; outcome: string }[]> {
  if (!p.config.stripe || !p.stripe) return [];
  const s = ready(p);
  const stale = await selectStaleAutoTopups(p.db, new Date(now.getTime() - s.c.autoTopupSettleAfterMs), now, 50);
  const settled: { id: string; outcome: string }[] = [];
  for (const payment of stale) {
    try {
      const outcome = await settleStaleAutoTopup(p, s, payment);
      // Still pending (Stripe still processes it, or it is not ours to settle): read it again later, less often.
      if (outcome.startsWith('unpaid') || outcome === 'not ours') await deferAutoTopupRecheck(p.db, payment.id, now);
      settled.push({ id: payment.id, outcome });
    } catch (err) {
      // Stripe unreachable again: the next pass tries again; the payment keeps its slot meanwhile.
      p.log.warn({ err, paymentId: payment.id }, 'automatic top-up: could not be read back from Stripe');
    }
  }
  return settled;
}

async function settleStaleAutoTopup(p: StripePorts, s: Ready, payment: PaymentRow): Promise<string> {
  const acct = await selectBillingAccount(p.db, payment.organization_id);
  if (!acct) return 'not ours';
  let pi: Stripe.PaymentIntent | undefined;
  if (payment.payment_intent_id) {
    pi = await s.stripe.paymentIntents.retrieve(payment.payment_intent_id, { expand: ['latest_charge'] });
  } else {
    // Listing is read from Stripe's records as they are (search would be eventually consistent). A margin of a
    // day before the claim covers a clock of this node behind Stripe's.
    const since = Math.floor(payment.created_at.getTime() / 1000) - 86_400;
    for await (const candidate of s.stripe.paymentIntents.list({ customer: acct.stripe_customer_id, created: { gte: since }, limit: 100 })) {
      if (candidate.metadata?.mmgen_payment_id === payment.id) {
        pi = await s.stripe.paymentIntents.retrieve(candidate.id, { expand: ['latest_charge'] });
        break;
      }
    }
  }
  if (!pi) {
    const recorded = await autoTopupFailed(p, payment, null, 'no_answer', 'Stripe never answered the automatic payment and has no record of it; nothing was charged.', 'canceled');
    return recorded ? 'canceled' : 'already settled';
  }
  if (pi.metadata?.mmgen_payment_id !== payment.id || idOf(pi.customer) !== acct.stripe_customer_id) return 'not ours';
  return settleIntent(p, payment, pi);
}

/** The scheduler's pass: every organization whose auto top-up may be due (the claim decides). */
export async function sweepAutoTopups(p: StripePorts): Promise<number> {
  if (!p.config.stripe || !p.stripe) return 0;
  // First the payments no answer settled: each holds its organization's in-flight slot until it is.
  await settleStaleAutoTopups(p);
  let started = 0;
  for (const organizationId of await selectAutoTopupCandidates(p.db)) {
    try {
      if ((await runAutoTopup(p, organizationId)) !== 'none') started++;
    } catch (err) {
      p.log.error({ err, organizationId }, 'automatic top-up failed to run');
    }
  }
  return started;
}

export interface AutoTopupSettings {
  enabled: boolean;
  threshold_credits: number | null;
  amount: number | null;
  monthly_cap: number | null;
}

export async function setAutoTopup(p: StripePorts, organizationId: string, s: AutoTopupSettings, origin: AuditOrigin): Promise<BillingAccountRow> {
  const r = ready(p);
  const acct = await account(p, r, organizationId);
  if (s.enabled) {
    if (!acct.payment_method_id) throw new ApiError('parameter_invalid', 'Save a card first (POST /v1/billing/payment-method): automatic top-ups pay with it.', 'enabled');
    if (s.threshold_credits === null) throw new ApiError('parameter_missing', 'threshold_credits is required to turn auto top-up on.', 'threshold_credits');
    if (s.amount === null) throw new ApiError('parameter_missing', 'amount is required to turn auto top-up on.', 'amount');
    if (s.monthly_cap === null) throw new ApiError('parameter_missing', 'monthly_cap is required to turn auto top-up on.', 'monthly_cap');
  }
  if (s.amount !== null && (s.amount < r.c.minAmount || s.amount > r.c.maxAmount)) {
    throw new ApiError('parameter_invalid', `amount must be from ${r.c.minAmount} to ${r.c.maxAmount} (${r.c.currency}, smallest unit).`, 'amount');
  }
  if (s.amount !== null && s.monthly_cap !== null && s.monthly_cap < s.amount) throw new ApiError('parameter_invalid', 'monthly_cap must be at least one top-up\'s amount.', 'monthly_cap');
  const settings = (a: BillingAccountRow) => ({
    enabled: a.auto_topup_enabled, threshold_credits: a.auto_topup_threshold_credits, amount: a.auto_topup_amount, monthly_cap: a.auto_topup_monthly_cap,
  });
  return p.db.tx(async (q) => {
    const next = (await updateAutoTopup(q, organizationId, { enabled: s.enabled, thresholdCredits: s.threshold_credits, amount: s.amount, monthlyCap: s.monthly_cap }))!;
    await recordAudit(q, {
      ...origin, organizationId, action: 'billing.auto_topup_changed', target: { type: 'organization', id: organizationId },
      before: settings(acct), after: settings(next),
    });
    return next;
  });
}

export interface BillingView {
  object: 'billing';
  enabled: boolean;
  currency: string | null;
  min_amount: number | null;
  max_amount: number | null;
  credits_per_unit: number | null;
  payment_method_saved: boolean;
  auto_topup: AutoTopupSettings & { consecutive_failures: number; last_error: string | null; max_failures: number | null };
}

/** What the organization's billing is: whether buying is on, its limits and rate, the saved card, auto top-up. */
export async function getBilling(p: StripePorts, organizationId: string): Promise<BillingView> {
  const c = p.config.stripe;
  const acct = c ? await selectBillingAccount(p.db, organizationId) : undefined;
  return {
    object: 'billing',
    enabled: c !== undefined,
    currency: c?.currency ?? null,
    min_amount: c?.minAmount ?? null,
    max_amount: c?.maxAmount ?? null,
    credits_per_unit: c?.creditsPerUnit ?? null,
    payment_method_saved: Boolean(acct?.payment_method_id),
    auto_topup: {
      enabled: acct?.auto_topup_enabled ?? false,
      threshold_credits: acct?.auto_topup_threshold_credits ?? null,
      amount: acct?.auto_topup_amount ?? null,
      monthly_cap: acct?.auto_topup_monthly_cap ?? null,
      consecutive_failures: acct?.auto_topup_failures ?? 0,
      last_error: acct?.auto_topup_last_error ?? null,
      max_failures: c?.autoTopupMaxFailures ?? null,
    },
  };
}

/**
 * An entry of the payment history as GET /v1/billing/payments answers it: the schema the route serves, and the type
 * this module builds, are one.
 */
export const BillingEntrySchema = Type.Object(
  {
    object: Type.Literal('billing_entry'),
    id: Type.String(),
    // Served as a string enum, as before; typed as its union.
    type: Type.Unsafe<'payment' | 'auto_topup' | 'refund' | 'dispute'>(Type.String({ enum: ['payment', 'auto_topup', 'refund', 'dispute'] })),
    status: Type.String({ description: 'payment: pending, succeeded, failed, requires_action, canceled; refund: succeeded; dispute: open, won, lost.' }),
    payment_id: Type.String(),
    amount: Type.Integer({ description: "In the currency's smallest unit." }),
    currency: Type.String(),
    credits: Type.Integer({ description: 'Credits moved: positive for a credited payment, negative for a refund or a dispute still held or lost, 0 otherwise.' }),
    receipt_url: Type.Union([Type.String({ description: "Stripe's receipt of the payment." }), Type.Null()]),
    failure_message: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'BillingEntry' },
);
export type BillingEntry = Static<typeof BillingEntrySchema>;

/** Payments, automatic top-ups, refunds and disputes, newest first. */
export async function listBillingEntries(db: Db, organizationId: string, limit: number): Promise<BillingEntry[]> {
  const { payments, adjustments } = await selectBillingHistory(db, organizationId, limit);
  const entries: BillingEntry[] = [
    ...payments.map((x): BillingEntry => ({
      object: 'billing_entry', id: x.id, type: x.kind === 'auto_topup' ? 'auto_topup' : 'payment', status: x.status, payment_id: x.id, amount: x.amount,
      currency: x.currency, credits: x.credited_at ? x.credits : 0, receipt_url: x.receipt_url, failure_message: x.failure_message, created_at: x.created_at.toISOString(),
    })),
    ...adjustments.map((a): BillingEntry => ({
      object: 'billing_entry', id: a.id, type: a.kind, status: a.status, payment_id: a.payment_id, amount: a.amount, currency: a.currency,
      credits: a.kind === 'dispute' && a.status === 'won' ? 0 : -a.credits, receipt_url: a.receipt_url, failure_message: null,
      created_at: a.created_at.toISOString(),
    })),
  ];
  entries.sort((x, y) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : x.id < y.id ? 1 : -1));
  return entries.slice(0, limit);
}
