import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_DECLINED, FakeStripe, STRIPE_API_VERSION } from '../fakes/stripe.js';

/**
 * The loopback Stripe refuses what Stripe refuses, in Stripe's error shape, as the official library reads it: a
 * fake that took anything would let mmgen's calls pass here and fail against Stripe.
 */
describe('the Stripe fake refuses what Stripe refuses', () => {
  let fake: FakeStripe;
  let stripe: Stripe;
  let customer: string;

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    const u = new URL(fake.url);
    stripe = new Stripe(fake.key, { apiVersion: STRIPE_API_VERSION, host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });
    customer = (await stripe.customers.create({ metadata: { organization_id: 'org_x' } })).id;
  });
  afterAll(async () => fake?.close());

  async function refusal(p: Promise<unknown>): Promise<{ statusCode?: number; type: string; code?: string; param?: string; message: string; raw: unknown }> {
    try {
      await p;
    } catch (err) {
      return err as never;
    }
    throw new Error('the fake took it');
  }

  it('an unknown parameter, at any depth: 400 parameter_unknown naming it', async () => {
    const top = await refusal(stripe.paymentIntents.create({ amount: 1000, currency: 'usd', colour: 'red' } as never));
    expect(top).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', code: 'parameter_unknown', param: 'colour' });
    const deep = await refusal(stripe.checkout.sessions.create({
      mode: 'payment', success_url: 'http://x/', line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 1000, product_data: { name: 'n', colour: 'red' } } }],
    } as never));
    expect(deep).toMatchObject({ code: 'parameter_unknown', param: 'line_items[0][price_data][product_data][colour]' });
  });

  it('a missing amount, a missing line item amount: 400 parameter_missing', async () => {
    expect(await refusal(stripe.paymentIntents.create({ currency: 'usd' } as never))).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'amount' });
    const r = await refusal(stripe.checkout.sessions.create({ mode: 'payment', success_url: 'http://x/', line_items: [{ quantity: 1, price_data: { currency: 'usd', product_data: { name: 'n' } } }] }));
    expect(r).toMatchObject({ code: 'parameter_missing', param: 'line_items[0][price_data][unit_amount]' });
  });

  it('a currency Stripe does not take, or mixed currencies, and an amount below the minimum', async () => {
    expect(await refusal(stripe.paymentIntents.create({ amount: 1000, currency: 'xyz' }))).toMatchObject({ statusCode: 400, param: 'currency', message: expect.stringMatching(/^Invalid currency: xyz/) });
    expect(await refusal(stripe.paymentIntents.create({ amount: 10, currency: 'usd' }))).toMatchObject({ code: 'amount_too_small', param: 'amount' });
    const mixed = await refusal(stripe.checkout.sessions.create({
      mode: 'payment', success_url: 'http://x/',
      line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 1000, product_data: { name: 'a' } } }, { quantity: 1, price_data: { currency: 'eur', unit_amount: 1000, product_data: { name: 'b' } } }],
    }));
    expect(mixed).toMatchObject({ statusCode: 400, param: 'line_items[1][price_data][currency]' });
  });

  it('an Idempotency-Key reused with other parameters: 400 idempotency_error; with the same ones, the first answer again', async () => {
    const first = await stripe.customers.create({ name: 'a' }, { idempotencyKey: 'same-key' });
    const again = await stripe.customers.create({ name: 'a' }, { idempotencyKey: 'same-key' });
    expect(again.id).toBe(first.id);
    const other = await refusal(stripe.customers.create({ name: 'b' }, { idempotencyKey: 'same-key' }));
    expect(other).toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError', message: expect.stringContaining("Try using a key other than 'same-key'") });
  });

  it('a wrong key: 401; an unknown object: 404 resource_missing', async () => {
    const u = new URL(fake.url);
    const wrong = new Stripe('sk_test_wrong', { apiVersion: STRIPE_API_VERSION, host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 });
    expect(await refusal(wrong.customers.retrieve(customer))).toMatchObject({ statusCode: 401, type: 'StripeAuthenticationError' });
    expect(await refusal(stripe.paymentIntents.retrieve('pi_nope'))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it("another account's objects and the other mode's: 404 resource_missing, never listed, confirmed or refunded", async () => {
    const home = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd', customer });
    const other = fake.paymentElsewhere({ account: 'acct_someoneelse' });
    const live = fake.paymentElsewhere({ livemode: true });
    for (const { paymentIntent, charge } of [other, live]) {
      expect(await refusal(stripe.paymentIntents.retrieve(paymentIntent.id as string))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
      expect(await refusal(stripe.charges.retrieve(charge.id as string))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
      expect(await refusal(stripe.refunds.create({ charge: charge.id as string }))).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'charge' });
      expect(await refusal(stripe.paymentIntents.confirm(paymentIntent.id as string))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    }
    // Stripe's message for the other mode says so; for another account it says no more than "no such".
    expect((await refusal(stripe.paymentIntents.retrieve(live.paymentIntent.id as string))).message).toMatch(/a similar object exists in live mode, but a test mode key was used/);
    expect((await refusal(stripe.paymentIntents.retrieve(other.paymentIntent.id as string))).message).toBe(`No such payment_intent: '${String(other.paymentIntent.id)}'`);
    const listed: string[] = [];
    for await (const pi of stripe.paymentIntents.list({ limit: 100 })) listed.push(pi.id);
    expect(listed).not.toContain(other.paymentIntent.id);
    expect(listed).not.toContain(live.paymentIntent.id);
    expect(listed).toContain(home.id);
    // Their events still go out, in their mode, naming a connected account when asked.
    expect(fake.emit('payment_intent.succeeded', live.paymentIntent)).toMatchObject({ livemode: true });
    expect(fake.emit('payment_intent.succeeded', other.paymentIntent, { account: 'acct_someoneelse' })).toMatchObject({ livemode: false, account: 'acct_someoneelse' });
    expect(fake.emit('payment_intent.created', fake.paymentIntents.get(home.id)!)).not.toHaveProperty('account');
  });

  it('a declined card off-session: 402 card_error with the PaymentIntent, left requires_payment_method', async () => {
    const setup = await stripe.checkout.sessions.create({ mode: 'setup', currency: 'usd', customer, success_url: 'http://x/' });
    fake.completeSession(setup.id, CARD_DECLINED);
    const pm = (await stripe.setupIntents.retrieve(fake.sessions.get(setup.id)!.setup_intent as string)).payment_method as string;
    const err = await refusal(stripe.paymentIntents.create({ amount: 1000, currency: 'usd', customer, payment_method: pm, off_session: true, confirm: true }));
    expect(err).toMatchObject({ statusCode: 402, type: 'StripeCardError', code: 'card_declined' });
    expect((err as unknown as { payment_intent: { status: string } }).payment_intent.status).toBe('requires_payment_method');
  });

  it("lists a Customer's PaymentIntents newest first, page by page, and refuses a bad limit, an unknown cursor or parameter", async () => {
    const other = (await stripe.customers.create({})).id;
    const since = Math.floor(Date.now() / 1000) - 60;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await stripe.paymentIntents.create({ amount: 1000 + i, currency: 'usd', customer })).id);
    await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', customer: other });
    const first = await stripe.paymentIntents.list({ customer, created: { gte: since }, limit: 2 });
    expect(first.data.map((pi) => pi.id)).toEqual([made[4], made[3]]);
    expect(first.has_more).toBe(true);
    const all: string[] = [];
    for await (const pi of stripe.paymentIntents.list({ customer, created: { gte: since }, limit: 2 })) all.push(pi.id);
    expect(all.filter((id) => made.includes(id))).toEqual([...made].reverse());
    expect((await stripe.paymentIntents.list({ customer, created: { gt: Math.floor(Date.now() / 1000) + 60 } })).data).toEqual([]);
    expect(await refusal(stripe.paymentIntents.list({ limit: 101 }))).toMatchObject({ statusCode: 400, param: 'limit' });
    expect(await refusal(stripe.paymentIntents.list({ starting_after: 'pi_nope' }))).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'starting_after' });
    expect(await refusal(stripe.paymentIntents.list({ colour: 'red' } as never))).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    expect(await refusal(stripe.paymentIntents.list({ customer: 'cus_nope' }))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });
});
