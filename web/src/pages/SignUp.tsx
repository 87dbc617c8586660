import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.js';
import { signUp, verifySignUp } from '../api/people.js';
import { ErrorNotice } from '../components/ui.js';
import { useDocumentTitle } from '../lib/hooks.js';
import { usePasswordRule } from '../lib/password-rule.js';
import { SignInCard } from './SignIn.js';

/** The mailed link's token rides in the fragment (no server log sees it); read once and taken out of the address bar. */
function takeToken(): string {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}

/** Following the mailed link: the account and its organization are made, the person is signed in, the dashboard opens. */
function Verify({ token }: { token: string }) {
  const [error, setError] = useState<unknown>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    verifySignUp(token).then(
      () => window.location.assign('/dashboard/'),
      (err: unknown) => setError(err),
    );
  }, [token]);
  return error ? (
    <ErrorNotice error={error} title="Could not create your account" />
  ) : (
    <p role="status">Confirming your email and creating your account…</p>
  );
}

/**
 * /dashboard/sign-up: an email and a password; the server mails a link to confirm the email (it answers the same
 * whether or not the email has an account). /dashboard/sign-up#token=… is that link.
 */
export function SignUp() {
  useDocumentTitle('Create an account');
  const passwordRule = usePasswordRule('signUp');
  const [token] = useState(takeToken);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const short = passwordRule.tooShort(password);
    if (short) return setError(short);
    if (password !== confirm) return setError(new ApiError(0, 'parameter_invalid', 'The two passwords differ.', 'password'));
    setBusy(true);
    setError(null);
    try {
      setSent((await signUp(email.trim(), password)).email);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  let body;
  if (token) body = <Verify token={token} />;
  else if (sent) {
    body = (
      <div className="notice" role="status" id="sign-up-sent">
        We sent a link to <strong>{sent}</strong>. Open it to confirm your email; your account and your organization are created then.
      </div>
    );
  } else {
    body = (
      <form className="signin-section" onSubmit={submit} aria-labelledby="page-title" noValidate>
        <label htmlFor="sign-up-email">Email</label>
        <input id="sign-up-email" name="email" type="email" autoComplete="username" autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="sign-up-password">Password</label>
        <input id="sign-up-password" name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-describedby="sign-up-password-hint" aria-invalid={error ? true : undefined} />
        <p className="muted small" id="sign-up-password-hint">
          {passwordRule.hint}
        </p>
        <label htmlFor="sign-up-confirm">Password again</label>
        <input id="sign-up-confirm" name="confirm" type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} aria-invalid={error ? true : undefined} />
        <button type="submit" className="btn btn-primary btn-md btn-block" disabled={busy || email.trim() === '' || password === '' || confirm === ''}>
          {busy ? 'Sending the link…' : 'Create an account'}
        </button>
        <p className="muted small">
          Already have one? <a href="/dashboard/">Sign in</a>
        </p>
      </form>
    );
  }
  return (
    <SignInCard>
      <h1 tabIndex={-1} id="page-title">
        Create an account
      </h1>
      {body}
      {error ? <ErrorNotice error={error} title="Could not sign up" /> : null}
    </SignInCard>
  );
}
