import { requestOrigin } from '../audit-origin.js';
import { Type } from '@sinclair/typebox';
import {
  BillingEntrySchema as BillingEntry, getBilling, listBillingEntries, receiveStripeEvent, setAutoTopup, startCardSetup, startCheckout, syncCheckoutSession,
} from '../../billing/stripe.js';
import { ApiError } from '../../errors.js';
import { defineRoute, type RouteDef } from '../route.js';
import { Nullable, Timestamp } from '../schemas.js';
import { Wallet } from './wallet.js';

const ReturnUrl = Type.String({
  format: 'uri', maxLength: 2000,
  description: 'Where Stripe sends the customer back (Checkout adds `checkout_session_id`); default: the dashboard\'s Billing page. Must be on this instance.',
});

const CheckoutSession = Type.Object(
  {
    object: Type.Literal('checkout_session'),
    id: Type.String({ description: "Stripe's Checkout Session id (cs_…)." }),
    payment_id: Nullable(Type.String({ description: 'The payment this session pays (null for a card setup).' })),
    url: Type.String({ description: "Stripe's hosted Checkout page: send the customer there." }),
    amount: Nullable(Type.Integer({ description: "The amount in the currency's smallest unit (cents)." })),
    currency: Type.String(),
    credits: Nullable(Type.Integer({ description: 'The credits the payment buys.' })),
  },
  { title: 'CheckoutSession' },
);

const AutoTopup = Type.Object(
  {
    enabled: Type.Boolean(),
    threshold_credits: Nullable(Type.Integer({ minimum: 0, description: 'A top-up starts when available credits fall below this.' })),
    amount: Nullable(Type.Integer({ minimum: 1, description: "What one automatic top-up pays, in the currency's smallest unit." })),
    monthly_cap: Nullable(Type.Integer({ minimum: 1, description: 'The most automatic top-ups may pay in one calendar month (UTC), same unit; never exceeded.' })),
  },
  { title: 'AutoTopupSettings' },
);

const Billing = Type.Object(
  {
    object: Type.Literal('billing'),
    enabled: Type.Boolean({ description: 'Whether credits can be bought here (the operator configured Stripe).' }),
    currency: Nullable(Type.String()),
    min_amount: Nullable(Type.Integer({ description: "Smallest purchase, in the currency's smallest unit." })),
    max_amount: Nullable(Type.Integer({ description: "Largest purchase, in the currency's smallest unit." })),
    credits_per_unit: Nullable(Type.Integer({ description: "Credits one smallest unit of the currency buys." })),
    payment_method_saved: Type.Boolean({ description: 'A card is saved for automatic top-ups.' }),
    auto_topup: Type.Object(
      {
        enabled: Type.Boolean(),
        threshold_credits: Nullable(Type.Integer()),
        amount: Nullable(Type.Integer()),
        monthly_cap: Nullable(Type.Integer()),
        consecutive_failures: Type.Integer({ description: 'Failed automatic payments in a row; auto top-up stops at max_failures.' }),
        last_error: Nullable(Type.String({ description: 'Why the last automatic payment failed.' })),
        max_failures: Nullable(Type.Integer()),
      },
      { title: 'AutoTopup' },
    ),
  },
  { title: 'Billing' },
);


/** A return URL must lead back to this instance: Checkout must not become an open redirect. */
function ownReturnUrl(publicUrl: string, url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (new URL(url).origin !== new URL(publicUrl).origin) throw new ApiError('parameter_invalid', `return_url must be on this instance (${publicUrl}).`, 'return_url');
  return url;
}

export const getBillingRoute = defineRoute({
  method: 'GET',
  path: '/v1/billing',
  operationId: 'getBilling',
  summary: "The organization's billing: buying credits, its saved card and auto top-up",
  description: 'Whether credits can be bought on this instance, within which amounts and at what rate, whether a card is saved, and the auto top-up settings with their failures.',
  tag: 'Billing',
  auth: { role: 'viewer', scope: 'usage:read' },
  schema: { response: { 200: Billing } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await getBilling(deps, principal.organizationId) }),
});

export const createCheckoutRoute = defineRoute({
  method: 'POST',
  path: '/v1/billing/checkout',
  operationId: 'createCheckout',
  summary: 'Buy credits: start a Stripe Checkout Session',
  description:
    "Owner or admin keys (live). `amount` is in the operator's currency's smallest unit, within its minimum and maximum (GET /v1/billing). The answer's `url` is Stripe's hosted page; the credits land when Stripe reports the payment paid, once.",
  tag: 'Billing',
  auth: { role: 'admin', mode: 'live' },
  errors: [403],
  schema: {
    body: Type.Object({ amount: Type.Integer({ minimum: 1, description: "In the currency's smallest unit (cents)." }), return_url: Type.Optional(ReturnUrl) }, { additionalProperties: false }),
    response: { 201: CheckoutSession },
  },
  handler: async ({ principal, body, deps }) => ({
    status: 201,
    body: await startCheckout(deps, principal.organizationId, body.amount, ownReturnUrl(deps.config.publicUrl, body.return_url)),
  }),
});

export const getCheckoutRoute = defineRoute({
  method: 'GET',
  path: '/v1/billing/checkout/{id}',
  operationId: 'getCheckout',
  summary: 'A Checkout Session after the return from Stripe, credited if paid',
  description:
    "Reads the session from Stripe and, if it is paid, credits it (once, like its webhook), so the return page shows the new balance at once. Answers the session's status, its payment and the wallet.",
  tag: 'Billing',
  auth: { role: 'viewer', scope: 'usage:read' },
  errors: [403, 404],
  schema: {
    params: Type.Object({ id: Type.String({ pattern: '^cs_[A-Za-z0-9_]+$', maxLength: 200 }) }),
    response: {
      200: Type.Object(
        { object: Type.Literal('checkout_result'), id: Type.String(), status: Type.String(), payment: Nullable(BillingEntry), wallet: Wallet },
        { title: 'CheckoutResult' },
      ),
    },
  },
  handler: async ({ principal, params, deps }) => {
    const r = await syncCheckoutSession(deps, principal.organizationId, params.id);
    const p = r.payment;
    const payment = p
      ? {
        object: 'billing_entry' as const, id: p.id, type: p.kind === 'auto_topup' ? 'auto_topup' : 'payment', status: p.status, payment_id: p.id, amount: p.amount,
        currency: p.currency, credits: p.credited_at ? p.credits : 0, receipt_url: p.receipt_url, failure_message: p.failure_message, created_at: p.created_at.toISOString(),
      }
      : null;
    return { status: 200, body: { object: 'checkout_result', id: params.id, status: r.status, payment, wallet: r.wallet } };
  },
});

export const createPaymentMethodRoute = defineRoute({
  method: 'POST',
  path: '/v1/billing/payment-method',
  operationId: 'createPaymentMethodSetup',
  summary: 'Save a card for automatic top-ups (Stripe Checkout in setup mode)',
  description: "Owner keys (live). The answer's `url` is Stripe's hosted page where the owner saves a card; it replaces any card saved before.",
  tag: 'Billing',
  auth: { role: 'owner', mode: 'live' },
  errors: [403],
  schema: {
    body: Type.Object({ return_url: Type.Optional(ReturnUrl) }, { additionalProperties: false }),
    response: { 201: CheckoutSession },
  },
  handler: async ({ principal, body, deps }) => ({
    status: 201,
    body: await startCardSetup(deps, principal.organizationId, ownReturnUrl(deps.config.publicUrl, body.return_url)),
  }),
});

export const updateAutoTopupRoute = defineRoute({
  method: 'PUT',
  path: '/v1/billing/auto-topup',
  operationId: 'updateAutoTopup',
  summary: 'Set auto top-up: threshold, amount and monthly cap (owner keys only)',
  description:
    'When available credits fall below `threshold_credits`, `amount` is paid with the saved card, one payment at a time, never more than `monthly_cap` a month. It stops after the operator\'s number of failures in a row, at once for a card that needs the owner\'s authentication, and while the organization is paused; `billing.auto_topup_failed` tells of each failure. Turning it on again clears the failures.',
  tag: 'Billing',
  auth: { role: 'owner', mode: 'live' },
  errors: [403],
  schema: { body: Type.Object(AutoTopup.properties, { additionalProperties: false }), response: { 200: Billing } },
  handler: async ({ principal, body, deps, request }) => {
    await setAutoTopup(deps, principal.organizationId, body, requestOrigin(principal, request));
    return { status: 200, body: await getBilling(deps, principal.organizationId) };
  },
});

export const listPaymentsRoute = defineRoute({
  method: 'GET',
  path: '/v1/billing/payments',
  operationId: 'listPayments',
  summary: 'Payments, automatic top-ups, refunds and disputes',
  description: "Newest first, each with its amount, the credits it moved and Stripe's receipt link.",
  tag: 'Billing',
  auth: { role: 'viewer', scope: 'usage:read' },
  schema: {
    querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) }, { additionalProperties: false }),
    response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(BillingEntry) }, { title: 'BillingEntryList' }) },
  },
  handler: async ({ principal, query, deps }) => ({ status: 200, body: { object: 'list', data: await listBillingEntries(deps.db, principal.organizationId, query.limit ?? 50) } }),
});

export const stripeWebhookRoute = defineRoute({
  method: 'POST',
  path: '/v1/billing/stripe/webhook',
  operationId: 'receiveStripeEvent',
  summary: "Stripe's webhook endpoint (for Stripe, not for clients)",
  description:
    "Events signed with the operator's webhook secret (Stripe-Signature) are verified with the stripe library; each event's object is then read again from Stripe's API, and only what the API says is paid is credited. Configure it in Stripe for checkout.session.completed, payment_intent.succeeded, payment_intent.payment_failed, charge.refunded and charge.dispute.*.",
  tag: 'Billing',
  auth: null,
  errors: [400, 403],
  rawBody: { contentTypes: ['application/json'], maxBytes: 1024 * 1024 },
  schema: { response: { 200: Type.Object({ received: Type.Boolean(), outcome: Type.String() }, { title: 'StripeEventReceipt' }) } },
  handler: async ({ request, deps }) => {
    const raw = request.body;
    if (!Buffer.isBuffer(raw)) throw new ApiError('invalid_json', 'The event body is missing.');
    const sig = request.headers['stripe-signature'];
    const r = await receiveStripeEvent(deps, raw, typeof sig === 'string' ? sig : undefined);
    return { status: 200, body: { received: true, outcome: r.outcome } };
  },
});

export const billingRoutes: RouteDef[] = [
  getBillingRoute, createCheckoutRoute, getCheckoutRoute, createPaymentMethodRoute, updateAutoTopupRoute, listPaymentsRoute, stripeWebhookRoute,
] as RouteDef[];
