import { useEffect, useState, type FormEvent } from 'react';
import { Button, Card, Empty, ErrorNotice, Field, Loading, Locked, PageHeader, StatusBadge, describedBy, useToast } from '../components/ui.js';
import { useFormSubmit } from '../lib/actions.js';
import { formatCredits, formatDateTime } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { setSearch, useLocation } from '../lib/router.js';
import type { FieldErrors } from '../lib/schema.js';
import { useSession } from '../session.js';
import type { Billing as BillingInfo, BillingEntry as Entry, CheckoutResult } from '../api/types.js';

/**
 * The server speaks in the currency's smallest unit (cents); people read and type the currency. How many digits
 * the smallest unit has is the currency's, as Intl knows it (2 for USD, 0 for JPY); no rate is kept here.
 */
function minorDigits(currency: string): number | undefined {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return undefined;
  }
}

/** An amount in the smallest unit, shown in the currency. */
function money(amount: number, currency: string): string {
  const digits = minorDigits(currency);
  if (digits === undefined) return `${amount} ${currency} (smallest unit)`;
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 10 ** digits);
}

/** An amount typed in the currency ("10", "10.50") in its smallest unit; undefined if it is not one (more digits than the currency has). */
function toMinor(text: string, currency: string): number | undefined {
  const digits = minorDigits(currency) ?? 0;
  const m = /^\s*(\d{1,9})(?:\.(\d*))?\s*$/.exec(text);
  if (!m || (m[2] ?? '').length > digits) return undefined;
  return Number(m[1]) * 10 ** digits + Number((m[2] ?? '').padEnd(digits, '0') || '0');
}

/** An amount in the smallest unit as the currency is typed ("10.00"), for a form's field. */
function fromMinor(amount: number, currency: string): string {
  const digits = minorDigits(currency) ?? 0;
  return (amount / 10 ** digits).toFixed(digits);
}

const TYPE_LABEL: Record<Entry['type'], string> = { payment: 'Payment', auto_topup: 'Auto top-up', refund: 'Refund', dispute: 'Dispute' };

export function Billing() {
  useDocumentTitle('Billing');
  const { api, can } = useSession();
  const { search } = useLocation();
  const read = can('getBilling');
  const buy = can('createCheckout');
  const setup = can('createPaymentMethodSetup');
  const auto = can('updateAutoTopup');
  const toast = useToast();
  const billing = useResource((signal) => api.get<BillingInfo>('/v1/billing', { signal }), [], { enabled: read.ok });
  const history = useResource((signal) => api.get<{ data: Entry[] }>('/v1/billing/payments', { signal }), [], { enabled: read.ok });
  const returned = search.get('checkout_session_id');
  // Back from Stripe: the server checks the session with Stripe and credits it if paid, so the balance is current at once.
  const result = useResource((signal) => api.get<CheckoutResult>(`/v1/billing/checkout/${encodeURIComponent(returned!)}`, { signal }), [returned], {
    enabled: read.ok && returned !== null,
  });
  useEffect(() => {
    if (result.data) history.reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [result.data]);

  const [amount, setAmount] = useState('');
  const buying = useFormSubmit();
  const [form, setForm] = useState({ enabled: false, threshold: '', amount: '', cap: '' });
  const saving = useFormSubmit();
  const [redirecting, setRedirecting] = useState(false);

  useEffect(() => {
    const a = billing.data?.auto_topup;
    const c = billing.data?.currency ?? 'usd';
    if (a) {
      setForm({
        enabled: a.enabled, threshold: a.threshold_credits?.toString() ?? '', amount: a.amount === null ? '' : fromMinor(a.amount, c), cap: a.monthly_cap === null ? '' : fromMinor(a.monthly_cap, c),
      });
    }
  }, [billing.data]);

  async function startCheckout(e: FormEvent) {
    e.preventDefault();
    const b = billing.data!;
    const n = toMinor(amount, b.currency!);
    const found: FieldErrors = {};
    if (n === undefined || n < (b.min_amount ?? 0) || n > (b.max_amount ?? Infinity)) found.amount = `must be an amount from ${money(b.min_amount!, b.currency!)} to ${money(b.max_amount!, b.currency!)}`;
    await buying.submit(found, async () => {
      const s = await api.post<{ url: string }>('/v1/billing/checkout', { amount: n });
      setRedirecting(true);
      window.location.assign(s.url);
    });
  }

  async function saveCard() {
    await saving.submit({}, async () => {
      const s = await api.post<{ url: string }>('/v1/billing/payment-method', {});
      setRedirecting(true);
      window.location.assign(s.url);
    });
  }

  async function saveAuto(e: FormEvent) {
    e.preventDefault();
    const currency = billing.data!.currency!;
    const num = (v: string) => (v.trim() === '' ? null : Number(v));
    const found: FieldErrors = {};
    const minor = (field: 'amount' | 'monthly_cap', v: string) => {
      if (v.trim() === '') return null;
      const n = toMinor(v, currency);
      if (n === undefined) found[field] = `must be an amount in ${currency.toUpperCase()}, like ${fromMinor(1000, currency)}`;
      return n ?? null;
    };
    const amountMinor = minor('amount', form.amount);
    const capMinor = minor('monthly_cap', form.cap);
    await saving.submit(found, async () => {
      billing.set(await api.put<BillingInfo>('/v1/billing/auto-topup', { enabled: form.enabled, threshold_credits: num(form.threshold), amount: amountMinor, monthly_cap: capMinor }));
      toast('Auto top-up saved.');
    });
  }

  const b = billing.data;
  return (
    <>
      <PageHeader title="Billing" description="Buy credits with a card through Stripe, keep a card for automatic top-ups, and see every payment, refund and dispute." />
      {!read.ok ? (
        <Locked perm={read} what="read billing" />
      ) : billing.error ? (
        <ErrorNotice error={billing.error} />
      ) : !b ? (
        <Loading what="Loading billing" />
      ) : !b.enabled ? (
        <Empty title="Buying credits is not set up here">The operator of this instance adds credits to your wallet; ask them for a top-up.</Empty>
      ) : (
        <>
          {returned !== null ? (
            <Card title="Your payment">
              {result.error ? (
                <ErrorNotice error={result.error} />
              ) : !result.data ? (
                <Loading what="Checking the payment with Stripe" />
              ) : (
                <p role="status" data-testid="checkout-result">
                  {result.data.status === 'credited' || result.data.status === 'already credited'
                    ? 'Payment received. '
                    : result.data.status === 'card saved'
                      ? 'Card saved for automatic top-ups. '
                      : `Payment ${result.data.status}. `}
                  Balance: <strong data-testid="balance">{formatCredits(result.data.wallet.balance_credits)}</strong>{' '}
                  <Button size="sm" onClick={() => setSearch({ checkout_session_id: null })}>
                    Dismiss
                  </Button>
                </p>
              )}
            </Card>
          ) : null}
          <Card title="Buy credits">
            <form onSubmit={startCheckout} noValidate aria-label="Buy credits">
              <Field
                id="buy-amount"
                label={`Amount (${b.currency?.toUpperCase()})`}
                hint={`From ${money(b.min_amount!, b.currency!)} to ${money(b.max_amount!, b.currency!)}; each ${money(1, b.currency!)} buys ${formatCredits(b.credits_per_unit!)}.`}
                error={buying.errors.amount}
              >
                <input
                  id="buy-amount"
                  name="amount"
                  type="text"
                  inputMode="decimal"
                  value={amount}
                  disabled={!buy.ok}
                  onChange={(e) => setAmount(e.target.value)}
                  aria-invalid={buying.errors.amount ? true : undefined}
                  aria-describedby={describedBy('buy-amount', true, buying.errors.amount)}
                />
              </Field>
              {buying.error ? <ErrorNotice error={buying.error} /> : null}
              <div className="form-actions">
                <Button type="submit" variant="primary" busy={buying.busy || redirecting} perm={buy}>
                  Continue to payment
                </Button>
              </div>
            </form>
          </Card>
          <Card title="Auto top-up">
            <p>
              {b.payment_method_saved ? 'A card is saved for automatic top-ups.' : 'No card is saved yet.'}{' '}
              <Button size="sm" onClick={() => void saveCard()} perm={setup} busy={redirecting}>
                {b.payment_method_saved ? 'Replace the card' : 'Save a card'}
              </Button>
            </p>
            {b.auto_topup.last_error ? (
              <p role="alert" data-testid="auto-topup-error">
                The last automatic payment failed ({b.auto_topup.consecutive_failures} in a row{b.auto_topup.enabled ? '' : '; auto top-up is off'}): {b.auto_topup.last_error}
              </p>
            ) : null}
            <form onSubmit={saveAuto} noValidate aria-label="Auto top-up">
              <Field id="auto-enabled" label="Top up automatically">
                <input id="auto-enabled" type="checkbox" checked={form.enabled} disabled={!auto.ok} onChange={(e) => setForm((f) => ({ ...f, enabled: e.target.checked }))} />
              </Field>
              <Field id="auto-threshold" label="When available credits fall below" error={saving.errors.threshold_credits}>
                <input id="auto-threshold" type="number" inputMode="numeric" value={form.threshold} disabled={!auto.ok} onChange={(e) => setForm((f) => ({ ...f, threshold: e.target.value }))} />
              </Field>
              <Field id="auto-amount" label={`Pay (${b.currency?.toUpperCase()})`} error={saving.errors.amount}>
                <input id="auto-amount" type="text" inputMode="decimal" value={form.amount} disabled={!auto.ok} onChange={(e) => setForm((f) => ({ ...f, amount: e.target.value }))} />
              </Field>
              <Field id="auto-cap" label={`At most this much a month (${b.currency?.toUpperCase()})`} error={saving.errors.monthly_cap}>
                <input id="auto-cap" type="text" inputMode="decimal" value={form.cap} disabled={!auto.ok} onChange={(e) => setForm((f) => ({ ...f, cap: e.target.value }))} />
              </Field>
              {saving.error ? <ErrorNotice error={saving.error} /> : null}
              <div className="form-actions">
                <Button type="submit" perm={auto} busy={saving.busy}>
                  Save auto top-up
                </Button>
              </div>
            </form>
          </Card>
          <Card title="Payments">
            {history.error ? (
              <ErrorNotice error={history.error} />
            ) : !history.data ? (
              <Loading what="Loading payments" />
            ) : history.data.data.length === 0 ? (
              <Empty title="No payments yet" />
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="payments-table">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">What</th>
                      <th scope="col">Status</th>
                      <th scope="col">Amount</th>
                      <th scope="col">Credits</th>
                      <th scope="col">Receipt</th>
                    </tr>
                  </thead>
                  <tbody>
                    {history.data.data.map((e) => (
                      <tr key={e.id}>
                        <td>{formatDateTime(e.created_at)}</td>
                        <td>{TYPE_LABEL[e.type]}</td>
                        <td>
                          <StatusBadge status={e.status} />
                          {e.failure_message ? <span className="muted"> {e.failure_message}</span> : null}
                        </td>
                        <td>{money(e.amount, e.currency)}</td>
                        <td>{formatCredits(e.credits)}</td>
                        <td>{e.receipt_url ? <a href={e.receipt_url} rel="noreferrer noopener" target="_blank">Receipt<span className="visually-hidden"> of {e.id}</span></a> : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Card>
        </>
      )}
    </>
  );
}
