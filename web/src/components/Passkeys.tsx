import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useState } from 'react';
import { ApiError } from '../api/client.js';
import { addPasskey, listPasskeys, removePasskey } from '../api/passkeys.js';
import { updateAccount } from '../api/people.js';
import { useAction } from '../lib/actions.js';
import { formatShort, relativeTime } from '../lib/format.js';
import { useResource } from '../lib/hooks.js';
import { useSession, type SignInProps } from '../session.js';
import { ActionsTable, Button, ErrorNotice, Loaded, useToast } from './ui.js';

/**
 * Passkeys in the dashboard: signing in with one (through the session provider, as a password does), and the
 * signed-in person's list, add and remove on the Account page, over the dashboard's own session (api/client.ts).
 */

const NO_WEBAUTHN = 'This browser cannot use passkeys here (they need a secure context: https, or http://localhost).';

/** The browser refused or the person cancelled: say so in words, not as a DOMException name. */
function ceremonyError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  const e = err as Error;
  if (e?.name === 'NotAllowedError') return new Error('The browser or the person cancelled the passkey request, or it timed out.');
  return new Error(e?.message ?? String(err));
}

export function PasskeySignInButton({ onSignIn }: { onSignIn: SignInProps['onPasskey'] }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!browserSupportsWebAuthn()) return <p className="muted small">{NO_WEBAUTHN}</p>;
  async function signIn() {
    setBusy(true);
    setError(null);
    try {
      // On success the provider opens the session and this page goes away.
      await onSignIn();
    } catch (err) {
      setError(ceremonyError(err));
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

/** The signed-in person's passkeys: list, add (the browser's registration ceremony), remove. */
/**
 * "Ask for a passkey after my password": shown to a person with a password. The server refuses it without a
 * passkey (409 passkey_required), and refuses removing the last passkey while it is on; its message says so.
 */
function PasskeyAfterPassword({ hasPasskey }: { hasPasskey: boolean }) {
  const { api, person, can } = useSession();
  const toast = useToast();
  const [on, setOn] = useState(person?.account?.passkey_after_password ?? false);
  const { busy, error, run } = useAction<string>();
  if (!person?.account?.has_password) return null;
  const toggle = (next: boolean) =>
    run('toggle', async () => {
      const account = await updateAccount(api, { passkey_after_password: next });
      setOn(account.passkey_after_password);
      toast(account.passkey_after_password ? 'A password sign-in now also asks for a passkey.' : 'A password alone signs you in again.');
    });
  return (
    <div className="field passkey-after-password">
      <label className="checkbox">
        <input
          id="passkey-after-password"
          type="checkbox"
          checked={on}
          disabled={busy === 'toggle' || !can('updateAccount').ok || (!on && !hasPasskey)}
          onChange={(e) => void toggle(e.target.checked)}
        />{' '}
        Ask for a passkey after my password
      </label>
      <p className="muted small">
        {hasPasskey || on
          ? 'Signing in with your password then also needs one of your passkeys. Signing in with a passkey alone, or through single sign-on, is unchanged.'
          : 'Add a passkey first: it is what you will use after your password.'}
      </p>
      {error ? <ErrorNotice error={error} title="The setting was not changed" /> : null}
    </div>
  );
}

export function PasskeyManager() {
  const { api, can } = useSession();
  const toast = useToast();
  const perm = can('listPasskeys');
  const passkeys = useResource((signal) => listPasskeys(api, signal), [api], { enabled: perm.ok });
  const [name, setName] = useState('');
  const { busy, error, run } = useAction<string>();

  const add = () =>
    run('add', async () => {
      const added = await addPasskey(api, name.trim() || undefined).catch((err: unknown) => {
        throw ceremonyError(err);
      });
      setName('');
      toast(`Passkey ${added.name} added.`);
      await passkeys.reload();
    });

  const remove = (id: string, label: string) =>
    run(id, async () => {
      await removePasskey(api, id);
      toast(`Passkey ${label} removed.`);
      await passkeys.reload();
    });

  return (
    <section aria-labelledby="passkeys-title" className="passkeys">
      <h2 id="passkeys-title">Passkeys</h2>
      <p className="muted">
        Sign in with this device's screen lock or a security key instead of a password. A passkey signs you in to every organization you belong to.
      </p>
      <Loaded perm={perm} what="manage passkeys" resource={passkeys} loading="Loading passkeys">
        {(list) => (
          <>
            {list.length === 0 ? (
              <p className="muted" id="no-passkeys">
                No passkeys yet.
              </p>
            ) : (
              <ActionsTable testId="passkeys-table" columns={['Name', 'Kind', 'Added', 'Last used']}>
                {list.map((p) => (
                  <tr key={p.id} data-passkey-id={p.id}>
                    <td>{p.name}</td>
                    <td>{p.device_type === 'multiDevice' ? 'synced' : 'this device only'}</td>
                    <td className="nowrap">{formatShort(p.created_at)}</td>
                    <td className="nowrap">{p.last_used_at ? relativeTime(p.last_used_at) : 'never'}</td>
                    <td className="actions">
                      <Button size="sm" variant="danger" busy={busy === p.id} onClick={() => void remove(p.id, p.name)} aria-label={`Remove passkey ${p.name}`}>
                        Remove
                      </Button>
                    </td>
                  </tr>
                ))}
              </ActionsTable>
            )}
            <PasskeyAfterPassword hasPasskey={list.length > 0} />
            {browserSupportsWebAuthn() ? (
              <form
                className="passkey-add"
                onSubmit={(e) => {
                  e.preventDefault();
                  void add();
                }}
                aria-label="Add a passkey"
              >
                <div className="field">
                  <label htmlFor="passkey-name">Name of a new passkey (optional)</label>
                  <div className="secret-row">
                    <input id="passkey-name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="Laptop" />
                    <Button id="add-passkey" type="submit" variant="primary" busy={busy === 'add'}>
                      Add a passkey
                    </Button>
                  </div>
                </div>
              </form>
            ) : (
              <p className="muted small">{NO_WEBAUTHN}</p>
            )}
          </>
        )}
      </Loaded>
      {error ? <ErrorNotice error={error} title="Passkeys" /> : null}
    </section>
  );
}
