import { useCallback, useState, type FormEvent, type ReactNode } from 'react';
import type { Api } from '../api/client.js';
import { openOperator, type AdminCatalog, type AdminModel, type AdminSpec, type AuditEntry, type ModelAccess } from '../api/operator.js';
import { Badge, Button, Card, Dialog, ErrorNotice, Field, PageHeader } from '../components/ui.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { checkFields, describeConstraints, type FieldErrors, type JsonSchema } from '../lib/schema.js';

/**
 * The instance operator's pages (/dashboard/operator): the effective catalog with where each fact comes from, a
 * model's price, name, capabilities and routes, disabling it, the global and per-model margins, an organization's
 * model access, and the audit. Everything comes from the admin API, and each form's limits from its own OpenAPI
 * document (/v1/admin/openapi.json). The operator credential is held in this component's state only: never
 * localStorage or sessionStorage, since it opens the whole installation (see api/operator.ts).
 */
export function Operator() {
  useDocumentTitle('Operator');
  const [session, setSession] = useState<{ api: Api; spec: AdminSpec } | null>(null);
  if (!session) return <OperatorSignIn onSignedIn={setSession} />;
  return (
    <main className="main operator" id="main">
      <OperatorPages api={session.api} spec={session.spec} onSignOut={() => setSession(null)} />
    </main>
  );
}

function OperatorSignIn({ onSignedIn }: { onSignedIn: (s: { api: Api; spec: AdminSpec }) => void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { api, spec } = await openOperator(token.trim());
      onSignedIn({ api, spec });
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }
  return (
    <main className="signin" id="main">
      <form className="signin-card" onSubmit={submit} noValidate>
        <h1 tabIndex={-1} id="page-title">
          Operator sign-in
        </h1>
        <p className="muted">
          The instance operator's credential (<code>MMGEN_ADMIN_TOKEN</code>), not an organization's API key. It is kept in this page's memory only: a
          reload asks for it again.
        </p>
        <label htmlFor="operator-token">Operator token</label>
        <input id="operator-token" className="mono" type="password" autoComplete="off" spellCheck={false} autoFocus value={token} onChange={(e) => setToken(e.target.value)} />
        <button type="submit" className="btn btn-primary btn-md btn-block" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error ? <ErrorNotice error={error} title="Could not sign in" /> : null}
      </form>
    </main>
  );
}

function OperatorPages({ api, spec, onSignOut }: { api: Api; spec: AdminSpec; onSignOut: () => void }) {
  const [editing, setEditing] = useState<AdminModel | null>(null);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  const catalog = useResource(() => api.get<AdminCatalog>('/v1/admin/models'), [api, tick]);
  const audit = useResource(() => api.get<{ data: AuditEntry[] }>('/v1/admin/audit?limit=50'), [api, tick]);

  return (
    <>
      <PageHeader
        title="Operator"
        description="The catalog as this installation serves it: the shipped models with your changes over them. Changes reach every node within seconds and are audited."
        actions={<Button onClick={onSignOut}>Sign out</Button>}
      />
      {catalog.error ? <ErrorNotice error={catalog.error} /> : null}
      {catalog.data && (
        <>
          <GlobalMargin api={api} spec={spec} current={catalog.data.margin_percent} onSaved={refresh} />
          <Card title={`Catalog (overlay version ${catalog.data.version})`}>
            <div className="table-wrap">
              <table className="table" data-testid="operator-catalog">
                <thead>
                  <tr>
                    <th scope="col">Model</th>
                    <th scope="col">Price (USD per unit)</th>
                    <th scope="col">Margin</th>
                    <th scope="col">Source</th>
                    <th scope="col">Routes</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {catalog.data.data.map((m) => (
                    <tr key={m.slug} data-slug={m.slug}>
                      <td>
                        <div className="strong">{m.definition.display_name}</div>
                        <code className="small">{m.slug}</code> {m.disabled && <Badge tone="red">disabled</Badge>} {m.status !== 'active' && <Badge>{m.status}</Badge>}
                      </td>
                      <td className="nowrap">
                        ${m.definition.unit_cost_usd} <FactSource m={m} field="unit_cost_usd" />
                      </td>
                      <td>{m.effective_margin_percent ? `${m.effective_margin_percent} %${m.margin_percent ? ' (own)' : ' (global)'}` : '—'}</td>
                      <td>
                        <Badge tone={m.source === 'shipped' ? 'gray' : 'blue'}>{m.source}</Badge>
                      </td>
                      <td className="small">
                        {m.definition.routes.map((r) => `${r.provider}: ${r.upstream}`).join(', ')} <FactSource m={m} field="routes" />
                      </td>
                      <td>
                        <Button size="sm" onClick={() => setEditing(m)} aria-label={`Edit ${m.slug}`}>
                          Edit
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Card>
        </>
      )}
      <ModelAccessForm api={api} spec={spec} onSaved={refresh} />
      <Card title="Audit">
        {audit.error ? <ErrorNotice error={audit.error} /> : null}
        <ol className="audit" data-testid="operator-audit">
          {(audit.data?.data ?? []).map((e) => (
            <li key={e.id}>
              <div>
                <time dateTime={e.at}>{new Date(e.at).toISOString().replace('T', ' ').slice(0, 19)}</time> · {e.actor} · <code>{e.action}</code> <code>{e.target}</code>
              </div>
              <details>
                <summary>Before and after</summary>
                <pre className="small">before: {JSON.stringify(e.before, null, 1)}</pre>
                <pre className="small">after: {JSON.stringify(e.after, null, 1)}</pre>
              </details>
            </li>
          ))}
        </ol>
      </Card>
      {editing && <EditModel key={editing.slug} api={api} spec={spec} model={editing} onClose={() => setEditing(null)} onSaved={refresh} />}
    </>
  );
}

function FactSource({ m, field }: { m: AdminModel; field: string }): ReactNode {
  return m.facts[field] === 'operator' ? <Badge tone="blue">operator</Badge> : null;
}

/** An input's limits as the admin document states them (its maxLength, a number's bounds). */
function limits(s: JsonSchema | undefined): { maxLength?: number; min?: number; max?: number } {
  const inner = s?.anyOf?.find((x) => x.type !== 'null') ?? s;
  return {
    ...(inner?.maxLength !== undefined ? { maxLength: inner.maxLength } : {}),
    ...(inner?.minimum !== undefined ? { min: inner.minimum } : {}),
    ...(inner?.maximum !== undefined ? { max: inner.maximum } : {}),
  };
}

function hintOf(s: JsonSchema | undefined): string | undefined {
  const inner = s?.anyOf?.find((x) => x.type !== 'null') ?? s;
  return [s?.description ?? inner?.description, inner ? describeConstraints(inner) : ''].filter(Boolean).join(' · ') || undefined;
}

function EditModel({ api, spec, model, onClose, onSaved }: { api: Api; spec: AdminSpec; model: AdminModel; onClose: () => void; onSaved: () => void }) {
  const op = 'adminEditModel';
  const d = model.definition;
  const [name, setName] = useState(d.display_name);
  const [price, setPrice] = useState(d.unit_cost_usd);
  const [caps, setCaps] = useState(d.capabilities.join(', '));
  const [routes, setRoutes] = useState(d.routes.map((r) => `${r.provider} ${r.upstream}`).join('\n'));
  const [disabled, setDisabled] = useState(model.disabled);
  const [margin, setMargin] = useState(model.margin_percent ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function save(e?: FormEvent) {
    e?.preventDefault();
    const body: Record<string, unknown> = {};
    if (name !== d.display_name) body.display_name = name;
    if (price !== d.unit_cost_usd) body.unit_cost_usd = price;
    const capList = caps.split(',').map((c) => c.trim()).filter(Boolean);
    if (capList.join(',') !== d.capabilities.join(',')) body.capabilities = capList;
    const routeList = routes.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
      const [provider = '', ...rest] = l.split(/\s+/);
      return { provider, upstream: rest.join(' ') };
    });
    if (JSON.stringify(routeList) !== JSON.stringify(d.routes)) body.routes = routeList;
    if (disabled !== model.disabled) body.disabled = disabled;
    if (margin !== (model.margin_percent ?? '')) body.margin_percent = margin === '' ? null : Number(margin);
    if (Object.keys(body).length === 0) return onClose();
    const found = checkFields(spec.body(op), body);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(null);
    try {
      await api.patch(`/v1/admin/models/${encodeURIComponent(model.slug)}`, body);
      onSaved();
      onClose();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  const f = (n: string) => spec.field(op, n);
  return (
    <Dialog
      open
      title={`Edit ${model.slug}`}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" busy={busy} onClick={() => void save()}>
            Save
          </Button>
        </>
      }
    >
      <form onSubmit={save} className="fields" noValidate>
        <Field id="op-name" label="Display name" error={errors.display_name} hint={hintOf(f('display_name'))}>
          <input id="op-name" value={name} onChange={(e) => setName(e.target.value)} {...limits(f('display_name'))} />
        </Field>
        <Field id="op-price" label="Price, US$ per unit" error={errors.unit_cost_usd} hint={hintOf(f('unit_cost_usd'))}>
          <input id="op-price" className="mono" inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} />
        </Field>
        <Field id="op-caps" label="Capabilities (comma-separated)" error={errors.capabilities} hint={hintOf(f('capabilities'))} wide>
          <input id="op-caps" value={caps} onChange={(e) => setCaps(e.target.value)} />
        </Field>
        <Field id="op-routes" label="Routes (one per line: provider upstream; the first is primary)" error={errors.routes} hint={hintOf(f('routes'))} wide>
          <textarea id="op-routes" className="mono" rows={3} value={routes} onChange={(e) => setRoutes(e.target.value)} />
        </Field>
        <Field id="op-margin" label="Own margin, % (empty: the global one)" error={errors.margin_percent} hint={hintOf(f('margin_percent'))}>
          <input id="op-margin" type="number" step="any" value={margin} onChange={(e) => setMargin(e.target.value)} {...limits(f('margin_percent'))} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} /> Disabled (refused to every organization)
        </label>
        {error ? <ErrorNotice error={error} title="Not saved" /> : null}
      </form>
    </Dialog>
  );
}

function GlobalMargin({ api, spec, current, onSaved }: { api: Api; spec: AdminSpec; current: string | null; onSaved: () => void }) {
  const [value, setValue] = useState(current ?? '');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const schema = spec.field('adminSetMargin', 'margin_percent');
  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.request('PUT', '/v1/admin/margin', { margin_percent: value === '' ? null : Number(value) });
      onSaved();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  }
  return (
    <Card title="Global margin">
      <form onSubmit={save} className="toolbar">
        <Field id="op-global-margin" label="Percent over upstream prices (empty: none)" hint={hintOf(schema)}>
          <input id="op-global-margin" type="number" step="any" value={value} onChange={(e) => setValue(e.target.value)} {...limits(schema)} />
        </Field>
        <Button type="submit" variant="primary" busy={busy}>
          Set margin
        </Button>
      </form>
      {error ? <ErrorNotice error={error} title="Not saved" /> : null}
    </Card>
  );
}

function ModelAccessForm({ api, spec, onSaved }: { api: Api; spec: AdminSpec; onSaved: () => void }) {
  const modes = (spec.field('adminSetModelAccess', 'mode')?.anyOf ?? []).map((s) => s.const).filter((c): c is string => typeof c === 'string');
  const [org, setOrg] = useState('');
  const [mode, setMode] = useState(modes[0] ?? '');
  const [models, setModels] = useState('');
  const [shown, setShown] = useState<ModelAccess | null>(null);
  const [error, setError] = useState<unknown>(null);
  const path = () => `/v1/admin/organizations/${encodeURIComponent(org.trim())}/model-access`;
  async function load() {
    setError(null);
    try {
      const a = await api.get<ModelAccess>(path());
      setShown(a);
      setMode(a.mode);
      setModels(a.models.join(', '));
    } catch (err) {
      setError(err);
    }
  }
  async function save(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      setShown(await api.request<ModelAccess>('PUT', path(), { mode, models: models.split(',').map((m) => m.trim()).filter(Boolean) }));
      onSaved();
    } catch (err) {
      setError(err);
    }
  }
  return (
    <Card title="An organization's models">
      <form onSubmit={save} className="fields" noValidate>
        <Field id="op-org" label="Organization id">
          <input id="op-org" className="mono" value={org} onChange={(e) => setOrg(e.target.value)} onBlur={() => org.trim() && void load()} />
        </Field>
        <Field id="op-mode" label="Mode" hint={spec.field('adminSetModelAccess', 'mode')?.description}>
          <select id="op-mode" value={mode} onChange={(e) => setMode(e.target.value)}>
            {modes.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field id="op-models" label="Models (comma-separated)" wide>
          <input id="op-models" value={models} onChange={(e) => setModels(e.target.value)} />
        </Field>
        <Button type="submit" variant="primary" disabled={!org.trim()}>
          Set access
        </Button>
      </form>
      {shown && (
        <p className="muted small" role="status">
          {shown.organization_id}: {shown.mode}
          {shown.mode !== 'all' ? ` ${shown.models.join(', ') || '(none)'}` : ''}
        </p>
      )}
      {error ? <ErrorNotice error={error} title="Model access" /> : null}
    </Card>
  );
}
