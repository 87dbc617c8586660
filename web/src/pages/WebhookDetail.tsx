import { useState, type FormEvent } from 'react';
import { query } from '../api/client.js';
import type { Delivery, DeliveryWithAttempts, List, Webhook } from '../api/types.js';
import { Badge, Button, Card, ConfirmDialog, Dialog, Empty, ErrorNotice, FormDialogActions, IdText, Loading, Locked, PageHeader, StatusBadge, useToast } from '../components/ui.js';
import { formatDateTime, formatShort, relativeTime } from '../lib/format.js';
import { useDocumentTitle, useInterval, useResource } from '../lib/hooks.js';
import { Link, navigate } from '../lib/router.js';
import { useAction, useFormSubmit } from '../lib/actions.js';
import { useSession } from '../session.js';
import { checkWebhook, WebhookFields, webhookPayload, type WebhookForm } from './Webhooks.js';

const STATUSES = ['pending', 'succeeded', 'failed', 'exhausted'];

/** Worth refreshing: a delivery not yet tried, or one whose next retry is due within a minute. */
function settlingSoon(d: Delivery, now = Date.now()): boolean {
  return d.status === 'pending' || (d.status === 'failed' && d.next_attempt_at !== null && new Date(d.next_attempt_at).getTime() - now < 60_000);
}

function DeliveryDialog({ webhookId, deliveryId, onClose, onReplayed }: { webhookId: string; deliveryId: string; onClose: () => void; onReplayed: (d: Delivery) => void }) {
  const { api, can } = useSession();
  const path = `/v1/webhooks/${webhookId}/deliveries/${deliveryId}`;
  const d = useResource((signal) => api.get<DeliveryWithAttempts>(path, { signal }), [path]);
  const { busy, error, run } = useAction();
  const x = d.data;
  useInterval(() => void d.reload(), 2000, Boolean(x && settlingSoon(x)));
  return (
    <Dialog
      open
      wide
      title={`Delivery ${deliveryId}`}
      onClose={onClose}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Close
          </Button>
          <Button
            variant="primary"
            busy={busy !== null}
            perm={can('replayWebhookDelivery')}
            onClick={() => run('replay', async () => onReplayed(await api.post<Delivery>(`${path}/replay`)))}
          >
            Replay
          </Button>
        </>
      }
    >
      {d.error ? <ErrorNotice error={d.error} /> : null}
      {!x ? (
        !d.error && <Loading what="Loading the delivery" />
      ) : (
        <>
          <dl className="kv">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={x.status} /> after {x.attempts} attempt{x.attempts === 1 ? '' : 's'}
            </dd>
            <dt>Event</dt>
            <dd>
              <code>{x.event_type}</code> · <code>{x.event_id}</code>
            </dd>
            {x.next_attempt_at && (
              <>
                <dt>Next attempt</dt>
                <dd>
                  {formatDateTime(x.next_attempt_at)} ({relativeTime(x.next_attempt_at)})
                </dd>
              </>
            )}
            {x.replay_of && (
              <>
                <dt>Replay of</dt>
                <dd>
                  <code>{x.replay_of}</code>
                </dd>
              </>
            )}
          </dl>
          <h3 className="subhead">Attempts</h3>
          {x.attempt_log.length === 0 ? (
            <p className="muted">No attempt has finished yet.</p>
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="attempts-table">
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Started</th>
                    <th scope="col">Status code</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Error</th>
                  </tr>
                </thead>
                <tbody>
                  {x.attempt_log.map((a) => (
                    <tr key={a.attempt}>
                      <td>{a.attempt}</td>
                      <td className="nowrap">{formatDateTime(a.started_at)}</td>
                      <td>
                        {a.response_status === null ? (
                          <span className="muted">—</span>
                        ) : (
                          <Badge tone={a.response_status >= 200 && a.response_status < 300 ? 'green' : 'red'}>{a.response_status}</Badge>
                        )}
                      </td>
                      <td className="nowrap">{a.duration_ms} ms</td>
                      <td className="break">{a.error ?? <span className="muted">—</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      {error ? <ErrorNotice error={error} title="The replay was not queued" /> : null}
    </Dialog>
  );
}

function EditDialog({ hook, onClose, onSaved }: { hook: Webhook; onClose: () => void; onSaved: (w: Webhook) => void }) {
  const { api, spec } = useSession();
  const [form, setForm] = useState<WebhookForm>({ url: hook.url, all: hook.events.includes('*'), events: hook.events.filter((e) => e !== '*') });
  const { errors, busy, error, submit } = useFormSubmit();
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const body = webhookPayload(form);
    await submit(checkWebhook(spec.op('updateWebhook')?.requestSchema, body), async () => onSaved(await api.patch<Webhook>(`/v1/webhooks/${hook.id}`, body)));
  }
  return (
    <Dialog open wide title="Edit the webhook" onClose={onClose}>
      <form onSubmit={onSubmit} noValidate>
        <WebhookFields form={form} set={(f) => setForm((x) => ({ ...x, ...f }))} errors={errors} />
        <FormDialogActions error={error} failed="Not saved" submit="Save" busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

export function WebhookDetail({ id }: { id: string }) {
  useDocumentTitle(`Webhook ${id}`);
  const { api, can } = useSession();
  const toast = useToast();
  const perm = can('getWebhook');
  const hook = useResource((signal) => api.get<Webhook>(`/v1/webhooks/${encodeURIComponent(id)}`, { signal }), [id], { enabled: perm.ok });
  const [status, setStatus] = useState('');
  const deliveries = useResource(
    (signal) => api.get<List<Delivery>>(`/v1/webhooks/${encodeURIComponent(id)}/deliveries${query({ status, limit: 50 })}`, { signal }),
    [id, status],
    { enabled: perm.ok },
  );
  const [open, setOpen] = useState<string | null>(null);
  const [dialog, setDialog] = useState<'edit' | 'delete' | null>(null);
  const { busy, error, run } = useAction<'test' | 'toggle'>();

  // Deliveries in flight are refreshed until they settle (a retry hours away is not polled for).
  const shown = deliveries.data?.data ?? [];
  const inFlight = shown.some((d) => settlingSoon(d));
  // A first attempt usually ends within a second; retries come later.
  useInterval(() => void deliveries.reload(), shown.some((d) => d.status === 'pending') ? 1000 : 2000, inFlight && open === null);

  if (!perm.ok) {
    return (
      <>
        <PageHeader title="Webhook" />
        <Locked perm={perm} what="manage webhooks" />
      </>
    );
  }
  if (hook.error && !hook.data) return <ErrorNotice error={hook.error} />;
  const w = hook.data;
  if (!w) return <Loading what="Loading the webhook" />;
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link to="/webhooks">Webhooks</Link> / <span>{w.id}</span>
      </nav>
      <PageHeader
        title={w.url}
        description={
          <>
            <StatusBadge status={w.enabled ? 'enabled' : 'disabled'} /> {w.mode} mode · created {formatShort(w.created_at)}
          </>
        }
        actions={
          <>
            <Button
              variant="primary"
              busy={busy === 'test'}
              perm={can('testWebhook')}
              onClick={() =>
                run('test', async () => {
                  const d = await api.post<Delivery>(`/v1/webhooks/${w.id}/test`);
                  toast(`Test event sent: delivery ${d.id}.`);
                  await deliveries.reload();
                })
              }
            >
              Send test event
            </Button>
            <Button
              busy={busy === 'toggle'}
              perm={can('updateWebhook')}
              onClick={() => run('toggle', async () => hook.set(await api.patch<Webhook>(`/v1/webhooks/${w.id}`, { enabled: !w.enabled })))}
            >
              {w.enabled ? 'Disable' : 'Enable'}
            </Button>
            <Button perm={can('updateWebhook')} onClick={() => setDialog('edit')}>
              Edit
            </Button>
            <Button variant="danger" perm={can('deleteWebhook')} onClick={() => setDialog('delete')}>
              Delete
            </Button>
          </>
        }
      />
      {error ? <ErrorNotice error={error} title="The action failed" /> : null}
      <Card title="Endpoint">
        <dl className="kv">
          <dt>Id</dt>
          <dd>
            <IdText id={w.id} />
          </dd>
          <dt>Events</dt>
          <dd className="caps">
            {w.events.map((e) => (
              <Badge key={e}>{e}</Badge>
            ))}
          </dd>
          <dt>Signing secret</dt>
          <dd className="muted">Shown only when the webhook was created. To change it, add a new endpoint and delete this one.</dd>
        </dl>
        {!w.enabled && <p className="notice notice-warn small">Disabled: scheduled retries are parked until it is enabled again. Replays and test events still go out.</p>}
      </Card>
      <Card
        title="Deliveries"
        actions={
          <>
            <label>
              <span className="visually-hidden">Delivery status</span>
              <select value={status} onChange={(e) => setStatus(e.target.value)} aria-label="Filter deliveries by status">
                <option value="">Any status</option>
                {STATUSES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </label>
            <Button size="sm" onClick={() => void deliveries.reload()}>
              Refresh
            </Button>
          </>
        }
      >
        {deliveries.error ? <ErrorNotice error={deliveries.error} /> : null}
        {!deliveries.data ? (
          !deliveries.error && <Loading what="Loading deliveries" />
        ) : deliveries.data.data.length === 0 ? (
          <Empty title="No deliveries yet">Events created after the webhook are delivered here. Send a test event to try it.</Empty>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="deliveries-table">
              <thead>
                <tr>
                  <th scope="col">Delivery</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last response</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.data.map((d) => (
                  <tr key={d.id} data-delivery-id={d.id} data-status={d.status}>
                    <td>
                      <button type="button" className="link-button mono" onClick={() => setOpen(d.id)} aria-label={`Open delivery ${d.id}`}>
                        {d.id}
                      </button>
                      {d.replay_of && <div className="muted small">replay of {d.replay_of}</div>}
                    </td>
                    <td>
                      <code>{d.event_type}</code>
                    </td>
                    <td>
                      <StatusBadge status={d.status} />
                    </td>
                    <td>{d.attempts}</td>
                    <td>
                      {d.last_response_status !== null && <Badge tone={d.last_response_status < 300 ? 'green' : 'red'}>{d.last_response_status}</Badge>}{' '}
                      {d.last_error && <span className="muted small break">{d.last_error}</span>}
                      {d.last_response_status === null && !d.last_error && <span className="muted">—</span>}
                    </td>
                    <td className="nowrap">{d.next_attempt_at ? relativeTime(d.next_attempt_at) : <span className="muted">—</span>}</td>
                    <td className="nowrap">{formatShort(d.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      {open && (
        <DeliveryDialog
          webhookId={w.id}
          deliveryId={open}
          onClose={() => setOpen(null)}
          onReplayed={(d) => {
            setOpen(null);
            toast(`Replay queued: delivery ${d.id}.`);
            void deliveries.reload();
          }}
        />
      )}
      {dialog === 'edit' && (
        <EditDialog
          hook={w}
          onClose={() => setDialog(null)}
          onSaved={(next) => {
            hook.set(next);
            setDialog(null);
            toast('Webhook saved.');
          }}
        />
      )}
      {dialog === 'delete' && (
        <ConfirmDialog
          title="Delete this webhook?"
          action="Delete webhook"
          failed="The webhook was not deleted"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await api.del(`/v1/webhooks/${w.id}`);
            toast('Webhook deleted.');
            navigate('/webhooks');
          }}
        >
          <p>
            <code>{w.url}</code> stops receiving events at once, and deliveries not yet sent are dropped.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
