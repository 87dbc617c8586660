import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { signUpOpen } from '../api/people.js';
import { PasskeySignInButton } from '../components/Passkeys.js';
import { ErrorNotice } from '../components/ui.js';
import { useDocumentTitle } from '../lib/hooks.js';
import type { SignInProps } from '../session.js';

/** One sign-in form's submit state: busy while it runs, its error shown under it. */
function useSubmit(run: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }
  return { busy, error, submit };
}

/**
 * The usual way in: a person's email and password (POST /v1/session sets the HttpOnly session cookie). When the
 * account asks for a passkey after the password, the server answers `second_factor_required` (holding the proven
 * password in an HttpOnly cookie for five minutes) and the form asks for the passkey.
 */
function PasswordSignIn({ onSubmit, onSecondFactor }: { onSubmit: SignInProps['onPassword']; onSecondFactor: SignInProps['onSecondFactor'] }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [secondFactor, setSecondFactor] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    if ((await onSubmit(email, password)) === 'second_factor') setSecondFactor(true);
  });
  const passkey = useSubmit(async () => {
    try {
      await onSecondFactor();
    } catch (err) {
      // The pending sign-in is used up by any answer: the password is asked for again.
      setSecondFactor(false);
      setPassword('');
      throw err;
    }
  });
  if (secondFactor) {
    return (
      <form className="signin-section" onSubmit={passkey.submit} aria-labelledby="signin-second-factor" noValidate>
        <h2 id="signin-second-factor">Now your passkey</h2>
        <p className="muted small" role="status">
          Your password is right. Your account also asks for one of your passkeys: use it within five minutes.
        </p>
        <button id="second-factor-passkey" type="submit" className="btn btn-primary btn-md btn-block" disabled={passkey.busy}>
          {passkey.busy ? 'Waiting for your passkey…' : 'Continue with a passkey'}
        </button>
        <button type="button" className="btn btn-ghost btn-md btn-block" disabled={passkey.busy} onClick={() => setSecondFactor(false)}>
          Start over
        </button>
      </form>
    );
  }
  return (
    <form className="signin-section" onSubmit={submit} aria-labelledby="signin-account" noValidate>
      <h2 id="signin-account">With your account</h2>
      <label htmlFor="signin-email">Email</label>
      <input id="signin-email" name="email" type="email" autoComplete="username" autoFocus value={email} onChange={(e) => setEmail(e.target.value)} aria-invalid={error ? true : undefined} />
      <label htmlFor="signin-password">Password</label>
      <input id="signin-password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-invalid={error ? true : undefined} />
      <button type="submit" className="btn btn-primary btn-md btn-block" disabled={busy || email.trim() === '' || password === ''}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      {error ? <ErrorNotice error={error} title="Could not sign in" /> : null}
      {passkey.error ? <ErrorNotice error={passkey.error} title="The passkey did not complete the sign-in" /> : null}
    </form>
  );
}

/** "Create an account", only when the server says it takes sign-ups (GET /v1/sign-up). */
function SignUpLink() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    let live = true;
    signUpOpen().then(
      (o) => live && setOpen(o),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  if (!open) return null;
  return (
    <p className="signin-section">
      No account yet? <a href="/dashboard/sign-up" id="create-account">Create an account</a>
    </p>
  );
}

/**
 * Single sign-on through the organization's identity provider. The organization is named by its id, which an
 * owner shares as a link (`/dashboard/?sso=org_…`, shown on the Members page) that fills it in.
 */
function SsoSignIn({ onSubmit }: { onSubmit: SignInProps['onSso'] }) {
  const [org, setOrg] = useState(() => new URLSearchParams(window.location.search).get('sso') ?? '');
  const { busy, error, submit } = useSubmit(() => onSubmit(org));
  return (
    <form className="signin-section" onSubmit={submit} aria-labelledby="signin-sso" noValidate>
      <h2 id="signin-sso">With single sign-on</h2>
      <label htmlFor="signin-sso-org">Organization ID</label>
      <input id="signin-sso-org" name="organization" className="mono" spellCheck={false} placeholder="org_…" value={org} onChange={(e) => setOrg(e.target.value)} aria-describedby="signin-sso-hint" aria-invalid={error ? true : undefined} />
      <p className="muted small" id="signin-sso-hint">
        For an organization that signs in through its identity provider (OpenID Connect). Your owner can give you its sign-in link.
      </p>
      <button type="submit" className="btn btn-secondary btn-md btn-block" disabled={busy || org.trim() === ''}>
        {busy ? 'Going to your identity provider…' : 'Sign in with SSO'}
      </button>
      {error ? <ErrorNotice error={error} title="Could not start single sign-on" /> : null}
    </form>
  );
}

/** The secondary way in: an API key, exchanged once for a session that acts as it; the browser never keeps the key. */
function KeySignIn({ onSubmit }: { onSubmit: SignInProps['onKey'] }) {
  const [key, setKey] = useState('');
  const [show, setShow] = useState(false);
  const { busy, error, submit } = useSubmit(() => onSubmit(key));
  return (
    <form className="signin-section" onSubmit={submit} aria-labelledby="signin-key" noValidate>
      <h2 id="signin-key">With an API key</h2>
      <p className="muted small">
        Paste a key (<code>sk_live_…</code> or <code>sk_test_…</code>). It is sent once, to open a session that acts as the key, and is not kept
        by this browser: the dashboard can do exactly what the key can do, until you sign out or the key is revoked.
      </p>
      <label htmlFor="api-key">API key</label>
      <div className="secret-row">
        <input
          id="api-key"
          name="api-key"
          className="mono"
          type={show ? 'text' : 'password'}
          autoComplete="off"
          spellCheck={false}
          value={key}
          onChange={(e) => setKey(e.target.value)}
          placeholder="sk_test_…"
          aria-invalid={error ? true : undefined}
        />
        <button type="button" className="btn btn-secondary btn-md" onClick={() => setShow((s) => !s)} aria-pressed={show}>
          {show ? 'Hide' : 'Show'}
        </button>
      </div>
      <button type="submit" className="btn btn-secondary btn-md btn-block" disabled={busy || key.trim() === ''}>
        {busy ? 'Signing in…' : 'Sign in with the key'}
      </button>
      {error ? <ErrorNotice error={error} title="Could not sign in" /> : null}
      <p className="muted small">
        No key? The operator prints one at the first start of <code>mmgen serve</code>, or creates one with <code>mmgen org create</code>.
      </p>
    </form>
  );
}

function Card({ children }: { children: ReactNode }) {
  return (
    <main className="signin" id="main">
      <div className="signin-card">
        <div className="brand brand-large">
          <img src="/dashboard/favicon.svg" alt="" width="32" height="32" />
          mmgen
        </div>
        {children}
      </div>
    </main>
  );
}

export function SignIn({ onKey, onPassword, onSecondFactor, onPasskey, onSso, message }: SignInProps) {
  useDocumentTitle('Sign in');
  return (
    <Card>
      <h1 tabIndex={-1} id="page-title">
        Sign in
      </h1>
      {message && (
        <div className="notice notice-warn" role="status">
          {message}
        </div>
      )}
      <PasswordSignIn onSubmit={onPassword} onSecondFactor={onSecondFactor} />
      <SignUpLink />
      <PasskeySignInButton onSignIn={onPasskey} />
      <SsoSignIn onSubmit={onSso} />
      <KeySignIn onSubmit={onKey} />
    </Card>
  );
}

export { Card as SignInCard };
