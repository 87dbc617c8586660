import type { SessionListItem } from '../api/people.js';
import type { List } from '../api/types.js';
import { PasskeyManager } from '../components/Passkeys.js';
import { ActionsTable, Badge, Button, Empty, ErrorNotice, Loaded, PageHeader, useToast } from '../components/ui.js';
import { useAction } from '../lib/actions.js';
import { formatShort, relativeTime } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { useSession } from '../session.js';

/** The signed-in person (or pasted key): who they are, their live sessions (each of which they can end), and their passkeys. */
export function Account() {
  useDocumentTitle('Account');
  const { api, can, key, person, signOut } = useSession();
  const toast = useToast();
  const perm = can('listSessions');
  const sessions = useResource((signal) => api.get<List<SessionListItem>>('/v1/sessions', { signal }), [], { enabled: perm.ok });
  const { busy, error, run } = useAction<string>();

  return (
    <>
      <PageHeader
        title="Account"
        description={
          person?.account
            ? `Signed in as ${person.account.email}${person.account.name ? ` (${person.account.name})` : ''}.`
            : `Signed in with the API key “${key.name}”, which has no account: this browser keeps only a session that acts as the key, never the key itself.`
        }
      />
      <Loaded perm={perm} what="list sessions" resource={sessions} loading="Loading sessions">
        {(list) =>
          list.data.length === 0 ? (
            <Empty title="No live sessions" />
          ) : (
            <section aria-labelledby="sessions-title">
              <h2 id="sessions-title">Your sessions</h2>
              <ActionsTable testId="sessions-table" columns={['Signed in', 'How', 'From', 'Last used', 'Ends at the latest']}>
                {list.data.map((x) => (
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
              </ActionsTable>
            </section>
          )
        }
      </Loaded>
      {error ? <ErrorNotice error={error} title="The session was not ended" /> : null}
      <PasskeyManager />
    </>
  );
}
