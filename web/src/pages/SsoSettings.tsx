import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.js';
import type { Member, SsoSettings, SsoSettingsParams } from '../api/people.js';
import type { List } from '../api/types.js';
import { Badge, Button, CopyButton, ErrorNotice, Loading, useToast } from '../components/ui.js';
import { useAction } from '../lib/actions.js';
import { formatShort } from '../lib/format.js';
import { useResource } from '../lib/hooks.js';
import { useSession } from '../session.js';

/** GET /v1/organization/sso: null when the organization has none (the server's 404). */
function useSso() {
  const { api, can } = useSession();
  return useResource(
    async (signal) => {
      try {
        return await api.get<SsoSettings>('/v1/organization/sso', { signal });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    [],
    { enabled: can('getSsoSettings').ok },
  );
}

interface Form {
  issuer: string;
  client_id: string;
  client_secret: string;
  domains: string;
  role: 'admin' | 'developer' | 'viewer';
  require: boolean;
  breakGlass: string;
}

const formOf = (s: SsoSettings | null): Form => ({
  issuer: s?.issuer ?? '',
  client_id: s?.client_id ?? '',
  client_secret: '',
  domains: s?.auto_join_domains.join(', ') ?? '',
  role: (s?.auto_join_role as Form['role'] | undefined) ?? 'viewer',
  require: s?.require_sso ?? false,
  breakGlass: s?.break_glass_member_id ?? '',
});

function SsoForm({ current, onSaved }: { current: SsoSettings | null; onSaved: (s: SsoSettings) => void }) {
  const { api } = useSession();
  const [f, setF] = useState<Form>(() => formOf(current));
  const set = (patch: Partial<Form>) => setF((x) => ({ ...x, ...patch }));
  const owners = useResource((signal) => api.get<List<Member>>('/v1/members', { signal }).then((l) => l.data.filter((m) => m.role === 'owner')), []);
  const { busy, error, run } = useAction();

  function submit(e: FormEvent) {
    e.preventDefault();
    const body: SsoSettingsParams = {
      issuer: f.issuer.trim(),
      client_id: f.client_id.trim(),
      auto_join_domains: f.domains.split(/[\s,]+/).filter(Boolean),
      auto_join_role: f.role,
      require_sso: f.require,
      break_glass_member_id: f.require && f.breakGlass ? f.breakGlass : null,
    };
    // Left empty, the stored secret is kept (the server never answers it).
    if (f.client_secret) body.client_secret = f.client_secret;
    void run('save', async () => onSaved(await api.put<SsoSettings>('/v1/organization/sso', body)));
  }

  return (
    <form onSubmit={submit} aria-labelledby="sso-title" noValidate>
      <div className="fields">
        <div className="field field-wide">
          <label htmlFor="sso-issuer">Issuer URL</label>
          <input id="sso-issuer" className="mono" spellCheck={false} placeholder="https://login.example.com" value={f.issuer} onChange={(e) => set({ issuer: e.target.value })} aria-describedby="sso-issuer-hint" />
          <div className="hint" id="sso-issuer-hint">
            Any OpenID Connect issuer that publishes discovery (Okta, Entra ID, Google, Keycloak…). mmgen reads it when you save.
          </div>
        </div>
        <div className="field">
          <label htmlFor="sso-client-id">Client ID</label>
          <input id="sso-client-id" className="mono" spellCheck={false} value={f.client_id} onChange={(e) => set({ client_id: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="sso-client-secret">Client secret</label>
          <input
            id="sso-client-secret"
            type="password"
            autoComplete="off"
            value={f.client_secret}
            onChange={(e) => set({ client_secret: e.target.value })}
            placeholder={current?.has_client_secret ? 'unchanged' : ''}
            aria-describedby="sso-client-secret-hint"
          />
          <div className="hint" id="sso-client-secret-hint">
            {current?.has_client_secret ? 'Stored, never shown. Leave empty to keep it.' : 'Leave empty for a public client.'}
          </div>
        </div>
        <div className="field field-wide">
          <label htmlFor="sso-domains">Email domains that join automatically</label>
          <input id="sso-domains" spellCheck={false} placeholder="example.com, example.org" value={f.domains} onChange={(e) => set({ domains: e.target.value })} aria-describedby="sso-domains-hint" />
          <div className="hint" id="sso-domains-hint">
            A person whose verified email is at one of these joins on their first sign-in. Anyone else must be invited.
          </div>
        </div>
        <div className="field">
          <label htmlFor="sso-role">They join as</label>
          <select id="sso-role" value={f.role} onChange={(e) => set({ role: e.target.value as Form['role'] })}>
            <option value="viewer">viewer</option>
            <option value="developer">developer</option>
            <option value="admin">admin</option>
          </select>
        </div>
        <div className="field field-wide field-check">
          <label className="check">
            <input type="checkbox" checked={f.require} onChange={(e) => set({ require: e.target.checked })} /> Require single sign-on for everyone but a break-glass owner
          </label>
        </div>
        {f.require && (
          <div className="field">
            <label htmlFor="sso-break-glass">Break-glass owner (may still use a password)</label>
            <select id="sso-break-glass" value={f.breakGlass} onChange={(e) => set({ breakGlass: e.target.value })}>
              <option value="">Choose an owner…</option>
              {(owners.data ?? []).map((m) => (
                <option key={m.id} value={m.id}>
                  {m.email ?? m.id}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      <Button type="submit" variant="primary" busy={busy !== null}>
        {current ? 'Save single sign-on' : 'Turn on single sign-on'}
      </Button>
      {error ? <ErrorNotice error={error} title="Single sign-on was not saved" /> : null}
    </form>
  );
}

/** The organization's single sign-on (OpenID Connect): shown to admins, changed by owners. */
export function SsoSettingsSection() {
  const { api, can, org } = useSession();
  const toast = useToast();
  const sso = useSso();
  const [editing, setEditing] = useState(false);
  const { busy, error, run } = useAction();
  if (!can('getSsoSettings').ok) return null;
  const mayChange = can('updateSsoSettings').ok;
  const signInLink = `${window.location.origin}/dashboard/?sso=${encodeURIComponent(org.id)}`;

  return (
    <section className="card" aria-labelledby="sso-title" data-testid="sso-section">
      <header className="card-header">
        <h2 id="sso-title">Single sign-on</h2>
        {sso.data && <Badge tone="green">on</Badge>}
      </header>
      {sso.error ? (
        <ErrorNotice error={sso.error} />
      ) : sso.data === undefined ? (
        <Loading what="Loading single sign-on" />
      ) : editing || (sso.data === null && mayChange) ? (
        <SsoForm
          current={sso.data}
          onSaved={(s) => {
            sso.set(s);
            setEditing(false);
            toast('Single sign-on saved.');
          }}
        />
      ) : sso.data === null ? (
        <p className="muted">Not configured. An owner can connect an OpenID Connect issuer here.</p>
      ) : (
        <>
          <dl className="kv">
            <dt>Issuer</dt>
            <dd className="mono">{sso.data.issuer}</dd>
            <dt>Client ID</dt>
            <dd className="mono">{sso.data.client_id}</dd>
            <dt>Joins automatically</dt>
            <dd>{sso.data.auto_join_domains.length ? `${sso.data.auto_join_domains.join(', ')} as ${sso.data.auto_join_role}` : 'nobody (invite people first)'}</dd>
            <dt>Required</dt>
            <dd>{sso.data.require_sso ? `yes, but for the break-glass owner ${sso.data.break_glass_member_id ?? ''}` : 'no: passwords work too'}</dd>
            <dt>Redirect URI to register</dt>
            <dd className="mono">{sso.data.redirect_uri}</dd>
            <dt>Updated</dt>
            <dd>{formatShort(sso.data.updated_at)}</dd>
          </dl>
          <p>
            Members sign in through it from the sign-in page, with this organization's ID, or with this link:
          </p>
          <div className="secret-row">
            <label className="visually-hidden" htmlFor="sso-link">
              Single sign-on link
            </label>
            <input id="sso-link" className="mono" readOnly value={signInLink} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={signInLink} size="md" label="Copy link" />
          </div>
          {mayChange && (
            <div className="card-actions">
              <Button onClick={() => setEditing(true)}>Change</Button>
              <Button
                variant="danger"
                busy={busy !== null}
                onClick={() =>
                  void run('off', async () => {
                    await api.del('/v1/organization/sso');
                    sso.set(null);
                    toast('Single sign-on is off.');
                  })
                }
              >
                Turn off
              </Button>
            </div>
          )}
          {error ? <ErrorNotice error={error} title="Single sign-on was not turned off" /> : null}
        </>
      )}
    </section>
  );
}
