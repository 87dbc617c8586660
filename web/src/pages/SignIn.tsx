import { useState, type FormEvent } from 'react';
import { PasskeySignInButton } from '../components/Passkeys.js';
import { ErrorNotice } from '../components/ui.js';
import { useDocumentTitle } from '../lib/hooks.js';

export function SignIn({ onSubmit, message }: { onSubmit: (key: string) => Promise<void>; message?: string | undefined }) {
  useDocumentTitle('Sign in');
  const [key, setKey] = useState('');
  const [show, setShow] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(key);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <main className="signin" id="main">
      <form className="signin-card" onSubmit={submit} noValidate>
        <div className="brand brand-large">
          <img src="/dashboard/favicon.svg" alt="" width="32" height="32" />
          mmgen
        </div>
        <h1 tabIndex={-1} id="page-title">
          Sign in with an API key
        </h1>
        <p className="muted">
          Paste a key (<code>sk_live_…</code> or <code>sk_test_…</code>). It stays in this browser tab only, in session storage, and is sent to this
          server's <code>/v1</code> API as a bearer token: the dashboard can do exactly what the key can do.
        </p>
        {message && (
          <div className="notice notice-warn" role="status">
            {message}
          </div>
        )}
        <label htmlFor="api-key">API key</label>
        <div className="secret-row">
          <input
            id="api-key"
            name="api-key"
            className="mono"
            type={show ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            autoFocus
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="sk_test_…"
            aria-invalid={error ? true : undefined}
          />
          <button type="button" className="btn btn-secondary btn-md" onClick={() => setShow((s) => !s)} aria-pressed={show}>
            {show ? 'Hide' : 'Show'}
          </button>
        </div>
        <button type="submit" className="btn btn-primary btn-md btn-block" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error ? <ErrorNotice error={error} title="Could not sign in" /> : null}
        {/* A passkey signs the person in to the dashboard session, which /passkeys uses today. */}
        <PasskeySignInButton onSignedIn={() => window.location.assign('/dashboard/passkeys')} />
        <p className="muted small">
          No key? The operator prints one at the first start of <code>mmgen serve</code>, or creates one with <code>mmgen org create</code>.
        </p>
      </form>
    </main>
  );
}
