import type { SessionListItem } from '../api/people.js';
import type { List } from '../api/types.js';
import { PasskeyManager } from '../components/Passkeys.js';
import { Badge, Button, Empty, ErrorNotice, Loading, Locked, PageHeader, useToast } from '../components/ui.js';
import { useAction } from '../lib/actions.js';
import { formatShort, relativeTime } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { useSession } from '../session.js';

/** The signed-in person: who they are, their live sessions (each of which they can end), and their passkeys. */
export function Account() {
  useDocumentTitle('Account');
  const { api, can, person, signOut } = useSession();
  const toast = useToast();
  const perm = can('listSessions');
  const sessions = useResource((signal) => api.get<List<SessionListItem>>('/v1/sessions', { signal }), [], { enabled: perm.ok });
  const { busy, error, run } = useAction<string>();

  return (
    <>
      <PageHeader
        title="Account"
        description={person ? `Signed in as ${person.account.email}${person.account.name ? ` (${person.account.name})` : ''}.` : 'A pasted API key has no account.'}
      />
      {!perm.ok ? (
        <Locked perm={perm} what="list sessions" />
      ) : sessions.error ? (
        <ErrorNotice error={sessions.error} />
      ) : !sessions.data ? (
        <Loading what="Loading sessions" />
      ) : sessions.data.data.length === 0 ? (
        <Empty title="No live sessions" />
      ) : (
        <section aria-labelledby="sessions-title">
          <h2 id="sessions-title">Your sessions</h2>
          <div className="table-wrap">
            <table className="table" data-testid="sessions-table">
              <thead>
                <tr>
                  <th scope="col">Signed in</th>
                  <th scope="col">How</th>
                  <th scope="col">From</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Ends at the latest</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {sessions.data.data.map((x) => (
                  <tr key={x.id} data-session-id={x.id}>
                    <td className="nowrap">
                      {formatShort(x.created_at)} {x.current && <Badge tone="blue">this one</Badge>}
                    </td>
                    <td>{x.method}</td>
                    <td>
                      {x.ip ?? '?'}
                      {x.user_agent && <div className="muted small">{x.user_agent}</div>}
                    </td>
                    <td className="nowrap">{relativeTime(x.last_seen_at)}</td>
                    <td className="nowrap">{formatShort(x.expires_at)}</td>
                    <td className="actions">
                      <Button
                        size="sm"
                        variant="danger"
                        perm={can('revokeSession')}
                        busy={busy === x.id}
                        aria-label={`End the session signed in ${formatShort(x.created_at)}`}
                        onClick={() =>
                          void run(x.id, async () => {
                            if (x.current) return signOut('You ended this session.');
                            await api.del(`/v1/sessions/${x.id}`);
                            toast('Session ended.');
                            await sessions.reload();
                          })
                        }
                      >
                        End
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {error ? <ErrorNotice error={error} title="The session was not ended" /> : null}
      <PasskeyManager />
    </>
  );
}
