import { useState, type FormEvent } from 'react';
import { WEBHOOK_EVENTS, type CreatedWebhook, type List, type Webhook } from '../api/types.js';
import { Badge, Button, describedBy, Dialog, Empty, ErrorNotice, Field, FormDialogActions, Loading, Locked, PageHeader, SecretReveal, StatusBadge } from '../components/ui.js';
import { SubsetField } from '../components/SubsetField.js';
import { formatShort } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { Link, navigate } from '../lib/router.js';
import { useFormSubmit } from '../lib/actions.js';
import { checkFields, type FieldErrors, type JsonSchema } from '../lib/schema.js';
import { useSession } from '../session.js';

export interface WebhookForm {
  url: string;
  all: boolean;
  events: string[];
}

export function webhookPayload(f: WebhookForm): { url: string; events: string[] } {
  return { url: f.url.trim(), events: f.all ? ['*'] : f.events };
}

export function WebhookFields({ form, set, errors }: { form: WebhookForm; set: (f: Partial<WebhookForm>) => void; errors: FieldErrors }) {
  const { key } = useSession();
  return (
    <>
      <Field
        id="wh-url"
        label="Endpoint URL"
        required
        error={errors.url}
        hint={key.mode === 'live' ? 'https only. Redirects are not followed.' : 'https, or http for test-mode webhooks. Redirects are not followed.'}
      >
        <input
          id="wh-url"
          name="url"
          type="url"
          placeholder="https://example.com/hooks/mmgen"
          value={form.url}
          onChange={(e) => set({ url: e.target.value })}
          aria-invalid={errors.url ? true : undefined}
          aria-describedby={describedBy('wh-url', true, errors.url)}
          autoFocus
        />
      </Field>
      <SubsetField
        legend="Events"
        name="events"
        everything={form.all}
        onEverything={(all) => set({ all })}
        everythingLabel={
          <>
            Every event (<code>*</code>), including ones added later
          </>
        }
        onlyLabel="Only these events"
        options={WEBHOOK_EVENTS}
        chosen={form.events}
        onChosen={(events) => set({ events })}
        error={errors.events}
      />
    </>
  );
}

export function checkWebhook(schema: JsonSchema | undefined, body: { url: string; events: string[] }): FieldErrors {
  const found = checkFields(schema, body);
  if (body.events.length === 0) found.events = 'Choose at least one event.';
  return found;
}

function CreateDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const { api, spec } = useSession();
  const [form, setForm] = useState<WebhookForm>({ url: '', all: false, events: ['generation.completed', 'generation.failed'] });
  const { errors, busy, error, submit } = useFormSubmit();
  const [created, setCreated] = useState<CreatedWebhook | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const body = webhookPayload(form);
    await submit(checkWebhook(spec.op('createWebhook')?.requestSchema, body), async () => {
      setCreated(await api.post<CreatedWebhook>('/v1/webhooks', body));
      onCreated();
    });
  }

  if (created) {
    return (
      <Dialog
        open
        title="Webhook created"
        onClose={onClose}
        footer={
          <>
            <Button variant="ghost" onClick={onClose}>
              Done
            </Button>
            <Button variant="primary" onClick={() => navigate(`/webhooks/${created.id}`)}>
              Open the webhook
            </Button>
          </>
        }
      >
        <p>
          Deliveries to <code>{created.url}</code> are signed with this secret: verify <code>X-Service-Signature</code> (HMAC-SHA-256 of{' '}
          <code>{'<t>.<body>'}</code>) before trusting a delivery.
        </p>
        <SecretReveal label="Signing secret" secret={created.secret} what="secret" />
      </Dialog>
    );
  }
  return (
    <Dialog open title="Add a webhook endpoint" onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        <WebhookFields form={form} set={(f) => setForm((x) => ({ ...x, ...f }))} errors={errors} />
        <FormDialogActions error={error} failed="The webhook was not created" submit="Add endpoint" busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

export function Webhooks() {
  useDocumentTitle('Webhooks');
  const { api, can, key } = useSession();
  const perm = can('listWebhooks');
  const hooks = useResource((signal) => api.get<List<Webhook>>('/v1/webhooks?limit=100', { signal }), [], { enabled: perm.ok });
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description={`Endpoints that receive signed events of this organization's ${key.mode} mode, retried up to 6 times; every attempt is logged and any delivery can be replayed.`}
        actions={
          <Button variant="primary" perm={can('createWebhook')} onClick={() => setCreating(true)}>
            Add endpoint
          </Button>
        }
      />
      {!perm.ok ? (
        <Locked perm={perm} what="manage webhooks" />
      ) : hooks.error ? (
        <ErrorNotice error={hooks.error} />
      ) : !hooks.data ? (
        <Loading what="Loading webhooks" />
      ) : hooks.data.data.length === 0 ? (
        <Empty title="No webhook endpoints yet">Add one to be told when generations finish instead of polling.</Empty>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="webhooks-table">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {hooks.data.data.map((w) => (
                <tr key={w.id}>
                  <td>
                    <Link to={`/webhooks/${w.id}`} className="mono break">
                      {w.url}
                    </Link>
                  </td>
                  <td>
                    <span className="caps">
                      {w.events.map((e) => (
                        <Badge key={e}>{e}</Badge>
                      ))}
                    </span>
                  </td>
                  <td>
                    <StatusBadge status={w.enabled ? 'enabled' : 'disabled'} />
                  </td>
                  <td className="nowrap">{formatShort(w.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && <CreateDialog onClose={() => setCreating(false)} onCreated={() => void hooks.reload()} />}
    </>
  );
}
