import { useEffect, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.js';
import { acceptInvitation, publicApi, readCsrfCookie, type SessionView } from '../api/people.js';
import { announceSignedOut } from '../session.js';
import { ErrorNotice } from '../components/ui.js';
import { useDocumentTitle } from '../lib/hooks.js';
import { usePasswordRule } from '../lib/password-rule.js';
import { SignInCard } from './SignIn.js';

/**
 * The token rides in the link's fragment (never sent to a server, so no log holds it). It is read once and taken
 * out of the address bar, so it does not stay in the tab's history.
 */
function takeToken(): string {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}

/**
 * /dashboard/accept-invitation#token=…: the first-start owner link and mailed invitations. Someone not signed in
 * chooses a password (and, for the owner link, which has no email, gives one); someone signed in joins as
 * themselves. Either way the answer signs in, and the dashboard opens.
 */
export function AcceptInvitation() {
  useDocumentTitle('Accept the invitation');
  const passwordRule = usePasswordRule('acceptInvitation');
  const [token] = useState(takeToken);
  const [signedIn, setSignedIn] = useState<SessionView | null | undefined>(() => (readCsrfCookie() ? undefined : null));
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (signedIn !== undefined) return;
    publicApi()
      .get<SessionView>('/v1/session')
      // A session opened with an API key is no person to join as: accepting then makes the account, as signed out.
      .then((v) => setSignedIn(v.account ? v : null), () => setSignedIn(null));
  }, [signedIn]);

  async function run(params: Parameters<typeof acceptInvitation>[0]) {
    setBusy(true);
    setError(null);
    try {
      await acceptInvitation(params);
      window.location.assign('/dashboard/');
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const short = passwordRule.tooShort(password);
    if (short) return setError(short);
    if (password !== confirm) return setError(new ApiError(0, 'parameter_invalid', 'The two passwords differ.', 'password'));
    void run({ token, password, ...(name.trim() ? { name: name.trim() } : {}), ...(email.trim() ? { email: email.trim() } : {}) });
  }

  async function signOutFirst() {
    await publicApi().del('/v1/session').catch(() => undefined);
    announceSignedOut();
    setSignedIn(null);
  }

  let body;
  if (!token) {
    body = (
      <div className="notice notice-warn" role="status">
        This page needs the whole link from your invitation (it ends with <code>#token=…</code>). Open the link again, or ask for a new one.
      </div>
    );
  } else if (signedIn === undefined) {
    body = <p role="status">Checking whether you are signed in…</p>;
  } else if (signedIn) {
    body = (
      <div className="signin-section">
        <p>
          You are signed in as <strong>{signedIn.account?.email}</strong>. Accept to join the organization with this account.
        </p>
        <button type="button" className="btn btn-primary btn-md btn-block" disabled={busy} onClick={() => void run({ token })}>
          {busy ? 'Accepting…' : `Accept as ${signedIn.account?.email}`}
        </button>
        <button type="button" className="btn btn-ghost btn-md btn-block" disabled={busy} onClick={() => void signOutFirst()}>
          Sign out, to accept with a new account
        </button>
      </div>
    );
  } else {
    body = (
      <form className="signin-section" onSubmit={submit} aria-labelledby="page-title" noValidate>
        <p className="muted">
          Create your account: you will sign in with your email and this password. An invitation sent by mail is for the address it was sent to.
        </p>
        <label htmlFor="accept-name">Your name</label>
        <input id="accept-name" name="name" autoComplete="name" autoFocus value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="accept-email">Email</label>
        <input id="accept-email" name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} aria-describedby="accept-email-hint" />
        <p className="muted small" id="accept-email-hint">
          Needed for the owner link printed at first start; an invitation by mail keeps the address it was sent to.
        </p>
        <label htmlFor="accept-password">Password</label>
        <input id="accept-password" name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-describedby="accept-password-hint" aria-invalid={error ? true : undefined} />
        <p className="muted small" id="accept-password-hint">
          {passwordRule.hint}
        </p>
        <label htmlFor="accept-confirm">Password again</label>
        <input id="accept-confirm" name="confirm" type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} aria-invalid={error ? true : undefined} />
        <button type="submit" className="btn btn-primary btn-md btn-block" disabled={busy || password === '' || confirm === ''}>
          {busy ? 'Creating your account…' : 'Accept and sign in'}
        </button>
      </form>
    );
  }

  return (
    <SignInCard>
      <h1 tabIndex={-1} id="page-title">
        Accept the invitation
      </h1>
      {body}
      {error ? <ErrorNotice error={error} title="Could not accept the invitation" /> : null}
    </SignInCard>
  );
}
