import { browserSupportsWebAuthn, startAuthentication, startRegistration, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/client.js';
import { formatDateTime } from '../lib/format.js';
import { Button, ErrorNotice } from './ui.js';

/**
 * Passkeys in the dashboard: signing in with one, and a signed-in person's list, add and remove. These calls use
 * the dashboard session (the HttpOnly cookie, with the CSRF token from its readable cookie in X-CSRF-Token), never
 * an API key: a passkey is a person's, and the /v1/passkeys operations are session-only.
 */

function csrfToken(): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === 'mmgen_csrf' || name === '__Host-mmgen_csrf') return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** A /v1 call with the session cookie (same origin only) and, for changes, the CSRF token. */
export async function sessionCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const csrf = csrfToken();
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? null : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'network_error', 'mmgen could not be reached. Check that the server is running.');
  }
  const parsed = (await res.json().catch(() => undefined)) as { error?: { code: string; message: string; param?: string; request_id?: string } } | undefined;
  if (!res.ok) {
    const e = parsed?.error;
    throw e ? new ApiError(res.status, e.code, e.message, e.param, e.request_id) : new ApiError(res.status, 'http_error', `HTTP ${res.status}`);
  }
  return parsed as T;
}

/** The browser refused or the person cancelled: say so in words, not as a DOMException name. */
function ceremonyError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  const e = err as Error;
  if (e?.name === 'NotAllowedError') return new Error('The browser or the person cancelled the passkey request, or it timed out.');
  return new Error(e?.message ?? String(err));
}

export function PasskeySignInButton({ onSignedIn, organizationId }: { onSignedIn: () => void; organizationId?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (typeof window !== 'undefined' && !browserSupportsWebAuthn()) {
    return <p className="muted small">This browser cannot use passkeys here (they need a secure context: https, or http://localhost).</p>;
  }
  async function signIn() {
    setBusy(true);
    setError(null);
    try {
      const options = await sessionCall<PublicKeyCredentialRequestOptionsJSON>('POST', '/v1/session/passkey/options');
      const credential = await startAuthentication({ optionsJSON: options });
      await sessionCall('POST', '/v1/session/passkey', { credential, ...(organizationId ? { organization_id: organizationId } : {}) });
      onSignedIn();
    } catch (err) {
      setError(ceremonyError(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="passkey-sign-in">
      <Button id="passkey-sign-in" className="btn-block" busy={busy} onClick={() => void signIn()}>
        Sign in with a passkey
      </Button>
      {error ? <ErrorNotice error={error} title="Could not sign in with a passkey" /> : null}
    </div>
  );
}

interface PasskeyItem {
  id: string;
  name: string;
  device_type: string;
  backed_up: boolean;
  created_at: string;
  last_used_at: string | null;
}

/** The signed-in person's passkeys: list, add (the browser's registration ceremony), remove. */
export function PasskeyManager() {
  const [items, setItems] = useState<PasskeyItem[] | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    try {
      setItems((await sessionCall<{ data: PasskeyItem[] }>('GET', '/v1/passkeys')).data);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);

  async function add() {
    setBusy('add');
    setError(null);
    try {
      const options = await sessionCall<PublicKeyCredentialCreationOptionsJSON>('POST', '/v1/passkeys/options');
      const credential = await startRegistration({ optionsJSON: options });
      await sessionCall('POST', '/v1/passkeys', { credential, ...(name.trim() ? { name: name.trim() } : {}) });
      setName('');
      await load();
    } catch (err) {
      setError(ceremonyError(err));
    } finally {
      setBusy(null);
    }
  }

  async function remove(id: string) {
    setBusy(id);
    setError(null);
    try {
      await sessionCall('DELETE', `/v1/passkeys/${encodeURIComponent(id)}`);
      await load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  }

  return (
    <section aria-labelledby="passkeys-title">
      <div className="passkeys">
        <h2 id="passkeys-title">Passkeys</h2>
        <p className="muted">Sign in with this device's screen lock or a security key instead of a password. A passkey signs you in to every organization you belong to.</p>
        {items === null ? (
          <p className="muted">Loading…</p>
        ) : items.length === 0 ? (
          <p className="muted" id="no-passkeys">No passkeys yet.</p>
        ) : (
          <ul id="passkeys" className="plain-list">
            {items.map((p) => (
              <li key={p.id} data-id={p.id}>
                <strong>{p.name}</strong>{' '}
                <span className="muted small">
                  {p.device_type === 'multiDevice' ? 'synced' : 'this device only'} · added {formatDateTime(p.created_at)}
                  {p.last_used_at ? ` · last used ${formatDateTime(p.last_used_at)}` : ' · never used'}
                </span>{' '}
                <Button size="sm" variant="danger" busy={busy === p.id} onClick={() => void remove(p.id)} aria-label={`Remove passkey ${p.name}`}>
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
        <label htmlFor="passkey-name">Name (optional)</label>
        <div className="secret-row">
          <input id="passkey-name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="Laptop" />
          <Button id="add-passkey" variant="primary" busy={busy === 'add'} onClick={() => void add()}>
            Add a passkey
          </Button>
        </div>
        {error ? <ErrorNotice error={error} title="Passkeys" /> : null}
      </div>
    </section>
  );
}
