import { useState, type FormEvent } from 'react';
import { ROLES, type ApiKey, type CreatedApiKey, type List, type Role } from '../api/types.js';
import { ActionsTable, Badge, Button, ConfirmDialog, describedBy, Dialog, Empty, Field, FormDialogActions, Loaded, PageHeader, SecretReveal, useToast } from '../components/ui.js';
import { SubsetField } from '../components/SubsetField.js';
import { BudgetFields } from '../components/BudgetFields.js';
import { formatShort, formatUsd, relativeTime } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { useFormSubmit } from '../lib/actions.js';
import { checkFields, type FieldErrors } from '../lib/schema.js';
import { useSession } from '../session.js';

interface KeyForm {
  name: string;
  mode: 'live' | 'test';
  role: Role;
  restricted: boolean;
  scopes: string[];
  allowlist: string;
  budget: string;
  block: boolean;
}

function toPayload(f: KeyForm, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { name: f.name.trim() };
  if (creating) {
    body.mode = f.mode;
    body.role = f.role;
  }
  body.scopes = f.restricted ? f.scopes : [];
  const ips = f.allowlist.split(/[\s,]+/).filter(Boolean);
  if (ips.length || !creating) body.ipAllowlist = ips;
  const budget = f.budget.trim();
  if (budget !== '') body.monthly_budget_usd = Number.isFinite(Number(budget)) ? Number(budget) : budget;
  else if (!creating) body.monthly_budget_usd = null;
  body.budget_action = f.block ? 'block' : 'notify';
  return body;
}

function KeyFields({ form, set, errors, creating }: { form: KeyForm; set: (f: Partial<KeyForm>) => void; errors: FieldErrors; creating: boolean }) {
  const { key: me, org, spec } = useSession();
  const allScopes = (spec.op('createApiKey')?.requestSchema?.properties?.scopes?.items?.enum ?? []) as string[];
  // A scoped key can only hand out its own scopes, never full access (contract §3).
  const grantable = me.scopes.length ? allScopes.filter((s) => me.scopes.includes(s)) : allScopes;
  const roles = ROLES.filter((r) => ROLES.indexOf(r) <= ROLES.indexOf(me.role));
  return (
    <>
      <Field id="key-name" label="Name" required error={errors.name} hint="What uses this key, e.g. “CI deploys” or “mobile app”.">
        <input
          id="key-name"
          name="name"
          value={form.name}
          onChange={(e) => set({ name: e.target.value })}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy('key-name', true, errors.name)}
          autoFocus
        />
      </Field>
      {creating && (
        <div className="row">
          <Field id="key-mode" label="Mode" hint={me.mode === 'test' ? 'A test key can only create test keys.' : 'Test keys run on the simulator and never move credits.'}>
            <select id="key-mode" value={form.mode} onChange={(e) => set({ mode: e.target.value as 'live' | 'test' })} disabled={me.mode === 'test'} aria-describedby="key-mode-hint">
              <option value="live">live</option>
              <option value="test">test</option>
            </select>
          </Field>
          <Field id="key-role" label="Role" hint="At most this key's own role; fixed once created.">
            <select id="key-role" value={form.role} onChange={(e) => set({ role: e.target.value as Role })} aria-describedby="key-role-hint">
              {roles.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </Field>
        </div>
      )}
      <SubsetField
        legend="Access"
        name="scopes"
        everything={!form.restricted}
        onEverything={(all) => set({ restricted: !all })}
        everythingDisabled={me.scopes.length > 0}
        everythingLabel={
          <>
            Every operation the role allows
            {me.scopes.length > 0 && <span className="muted small"> (not available: this key is itself restricted)</span>}
          </>
        }
        onlyLabel="Only these scopes"
        options={grantable}
        chosen={form.scopes}
        onChosen={(scopes) => set({ scopes })}
        error={errors.scopes}
      />
      <Field
        id="key-ips"
        label="IP allowlist"
        error={errors.ipAllowlist}
        hint={org.enterprise ? 'IPv4 or IPv6 addresses or CIDR ranges, one per line. Empty: any address.' : 'IP allowlists need an Enterprise organization.'}
      >
        <textarea
          id="key-ips"
          rows={2}
          className="mono"
          value={form.allowlist}
          placeholder={org.enterprise ? '203.0.113.0/24\n2001:db8::/32' : ''}
          disabled={!org.enterprise}
          onChange={(e) => set({ allowlist: e.target.value })}
          aria-invalid={errors.ipAllowlist ? true : undefined}
          aria-describedby={describedBy('key-ips', true, errors.ipAllowlist)}
        />
      </Field>
      <BudgetFields
        id="key-budget"
        amount={form.budget}
        onAmount={(budget) => set({ budget })}
        action={form.block ? 'block' : 'notify'}
        onAction={(a) => set({ block: a === 'block' })}
        errors={errors}
        amountHint="Sends usage.budget_threshold events at 50, 80 and 100 % of this month's spend (charged + held). Empty: no budget."
      />
    </>
  );
}

function KeyDialog({ editing, onClose, onSaved }: { editing: ApiKey | null; onClose: () => void; onSaved: (k: ApiKey) => void }) {
  const { api, key: me, spec } = useSession();
  const creating = editing === null;
  const [form, setForm] = useState<KeyForm>(() =>
    editing
      ? {
          name: editing.name,
          mode: editing.mode,
          role: editing.role,
          restricted: editing.scopes.length > 0,
          scopes: editing.scopes,
          allowlist: editing.ipAllowlist.join('\n'),
          budget: editing.monthly_budget_usd === null ? '' : String(editing.monthly_budget_usd),
          block: editing.budget_action === 'block',
        }
      : { name: '', mode: me.mode, role: me.role, restricted: me.scopes.length > 0, scopes: [], allowlist: '', budget: '', block: false },
  );
  const { errors, busy, error, submit } = useFormSubmit();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const body = toPayload(form, creating);
    const found = checkFields(spec.op(creating ? 'createApiKey' : 'updateApiKey')?.requestSchema, body);
    if (form.restricted && form.scopes.length === 0) found.scopes = 'Choose at least one scope, or allow every operation.';
    await submit(found, async () => {
      if (creating) {
        const k = await api.post<CreatedApiKey>('/v1/api-keys', body);
        setCreated(k);
        onSaved(k);
      } else {
        onSaved(await api.patch<ApiKey>(`/v1/api-keys/${editing.id}`, body));
        onClose();
      }
    });
  }

  if (created) {
    return (
      <Dialog
        open
        title="API key created"
        onClose={onClose}
        footer={
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        }
      >
        <p>
          <strong>{created.name}</strong> ({created.mode}, {created.role}) is ready.
        </p>
        <SecretReveal label="Secret key" secret={created.key} what="key" />
      </Dialog>
    );
  }
  return (
    <Dialog open title={creating ? 'Create an API key' : `Edit “${editing.name}”`} onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        <KeyFields form={form} set={(f) => setForm((x) => ({ ...x, ...f }))} errors={errors} creating={creating} />
        <FormDialogActions error={error} failed={creating ? 'The key was not created' : 'The key was not saved'} submit={creating ? 'Create key' : 'Save'} busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function RevokeDialog({ target, onClose, onRevoked }: { target: ApiKey; onClose: () => void; onRevoked: () => void }) {
  const { api, key: me } = useSession();
  const self = target.id === me.id;
  return (
    <ConfirmDialog
      title={`Revoke “${target.name}”?`}
      action="Revoke key"
      failed="The key was not revoked"
      onClose={onClose}
      onConfirm={async () => {
        await api.del(`/v1/api-keys/${target.id}`);
        onRevoked();
      }}
    >
      <p>
        Requests with <code>{target.prefix}…</code> will fail with <code>401 invalid_api_key</code> from the very next one, on every server. This cannot be
        undone; its usage stays attributed to it.
      </p>
      {self && <p className="notice notice-warn">This is the key you are signed in with: you will be signed out.</p>}
    </ConfirmDialog>
  );
}

export function ApiKeys() {
  useDocumentTitle('API keys');
  const { api, can, key: me, signOut } = useSession();
  const toast = useToast();
  const perm = can('listApiKeys');
  const keys = useResource((signal) => api.get<List<ApiKey>>('/v1/api-keys?limit=100', { signal }), [], { enabled: perm.ok });
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit' | 'revoke'; key: ApiKey } | null>(null);

  return (
    <>
      <PageHeader
        title="API keys"
        description={`Keys of this organization in ${me.mode} mode. A secret is shown once, at creation; mmgen stores only its hash.`}
        actions={
          <Button variant="primary" perm={can('createApiKey')} onClick={() => setDialog({ kind: 'create' })}>
            Create key
          </Button>
        }
      />
      <Loaded perm={perm} what="list API keys" resource={keys} loading="Loading keys">
        {(list) =>
          list.data.length === 0 ? (
            <Empty title="No keys" />
          ) : (
            <ActionsTable testId="keys-table" columns={['Name', 'Key', 'Role', 'Scopes', 'IP allowlist', 'Spent / budget this month', 'Last used', 'Created']}>
              {list.data.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td>
                    <span className="strong">{k.name}</span> {k.id === me.id && <Badge tone="blue">this key</Badge>}
                  </td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.role}</td>
                  <td>
                    {k.scopes.length === 0 ? (
                      <span className="muted">all</span>
                    ) : (
                      <span className="caps">
                        {k.scopes.map((s) => (
                          <Badge key={s}>{s}</Badge>
                        ))}
                      </span>
                    )}
                  </td>
                  <td>{k.ipAllowlist.length === 0 ? <span className="muted">any address</span> : <code className="small">{k.ipAllowlist.join(', ')}</code>}</td>
                  <td>
                    {formatUsd(k.spent_usd)}
                    {k.monthly_budget_usd === null ? (
                      <span className="muted"> / no budget</span>
                    ) : (
                      <>
                        {' '}/ {formatUsd(k.monthly_budget_usd)} {k.budget_action === 'block' && <Badge tone="red">blocks</Badge>}
                      </>
                    )}
                  </td>
                  <td className="nowrap">{relativeTime(k.last_used_at)}</td>
                  <td className="nowrap">{formatShort(k.created_at)}</td>
                  <td className="actions">
                    <Button size="sm" perm={can('updateApiKey')} onClick={() => setDialog({ kind: 'edit', key: k })} aria-label={`Edit ${k.name}`}>
                      Edit
                    </Button>
                    <Button size="sm" variant="danger" perm={can('deleteApiKey')} onClick={() => setDialog({ kind: 'revoke', key: k })} aria-label={`Revoke ${k.name}`}>
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </ActionsTable>
          )
        }
      </Loaded>
      {dialog?.kind === 'create' && <KeyDialog editing={null} onClose={() => setDialog(null)} onSaved={() => void keys.reload()} />}
      {dialog?.kind === 'edit' && (
        <KeyDialog
          editing={dialog.key}
          onClose={() => setDialog(null)}
          onSaved={() => {
            toast('Key saved.');
            void keys.reload();
          }}
        />
      )}
      {dialog?.kind === 'revoke' && (
        <RevokeDialog
          target={dialog.key}
          onClose={() => setDialog(null)}
          onRevoked={() => {
            setDialog(null);
            if (dialog.key.id === me.id) return signOut('You revoked the key you were signed in with.');
            toast(`Revoked “${dialog.key.name}”.`);
            void keys.reload();
          }}
        />
      )}
    </>
  );
}
