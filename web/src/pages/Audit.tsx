import { useEffect, useState, type FormEvent } from 'react';
import { query } from '../api/client.js';
import type { AuditEvent, List } from '../api/types.js';
import { Button, Empty, ErrorNotice, IdText, Loading, Locked, PageHeader } from '../components/ui.js';
import { useDocumentTitle } from '../lib/hooks.js';
import { formatDateTime } from '../lib/format.js';
import { setSearch, useLocation } from '../lib/router.js';
import { useSession } from '../session.js';

const PAGE = 50;

/** The filters the page keeps in its URL, as GET /v1/audit-events takes them. */
const FILTERS = ['action', 'actor', 'actor_type', 'target_type', 'target_id', 'since', 'until'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** A day picked in a date input as the API's date-time: the start of that day (UTC), or of the next for `until`. */
export function dayBound(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const d = new Date(`${day}T00:00:00.000Z`);
  if (end) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

function actorLabel(a: AuditEvent['actor']): string {
  switch (a.type) {
    case 'api_key':
      return `API key ${a.id}${a.user_id ? ` (member ${a.user_id})` : ''}`;
    case 'member':
      return `Member ${a.id}`;
    case 'operator':
      return `Operator: ${a.id}`;
    default:
      return `System: ${a.id}`;
  }
}

function Values({ event }: { event: AuditEvent }) {
  if (event.before === null && event.after === null) return <span className="muted">none</span>;
  return (
    <details>
      <summary>Before and after</summary>
      <div className="audit-values">
        <div>
          <p className="small muted">Before</p>
          <pre>{JSON.stringify(event.before, null, 2)}</pre>
        </div>
        <div>
          <p className="small muted">After</p>
          <pre>{JSON.stringify(event.after, null, 2)}</pre>
        </div>
      </div>
    </details>
  );
}

export function Audit() {
  useDocumentTitle('Audit log');
  const { api, can } = useSession();
  const { search } = useLocation();
  const perm = can('listAuditEvents');
  const applied: Filters = Object.fromEntries(FILTERS.map((f) => [f, search.get(f) ?? ''])) as Filters;
  const [form, setForm] = useState<Filters>(applied);
  const [items, setItems] = useState<AuditEvent[] | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [exporting, setExporting] = useState(false);
  const key = FILTERS.map((f) => applied[f]).join('|');

  const params = () => ({
    action: applied.action || undefined,
    actor: applied.actor || undefined,
    actor_type: applied.actor_type || undefined,
    target_type: applied.target_type || undefined,
    target_id: applied.target_id || undefined,
    since: applied.since ? dayBound(applied.since, false) : undefined,
    until: applied.until ? dayBound(applied.until, true) : undefined,
  });
  const page = (after?: string) => api.get<List<AuditEvent>>(`/v1/audit-events${query({ ...params(), limit: PAGE, starting_after: after })}`);

  useEffect(() => {
    setForm(applied);
    if (!perm.ok) return;
    let stale = false;
    setItems(null);
    setError(null);
    page().then(
      (l) => {
        if (stale) return;
        setItems(l.data);
        setHasMore(l.has_more);
      },
      (err) => !stale && setError(err),
    );
    return () => {
      stale = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, perm.ok]);

  function apply(e: FormEvent) {
    e.preventDefault();
    setSearch(Object.fromEntries(FILTERS.map((f) => [f, form[f].trim() || null])));
  }

  async function more() {
    if (!items?.length) return;
    setLoadingMore(true);
    try {
      const l = await page(items[items.length - 1]!.id);
      setItems([...items, ...l.data]);
      setHasMore(l.has_more);
    } catch (err) {
      setError(err);
    } finally {
      setLoadingMore(false);
    }
  }

  /** The server's JSON Lines export of the same filters, saved as a file. */
  async function exportJsonl() {
    setExporting(true);
    try {
      const res = await fetch(`/v1/audit-events/export${query(params())}`, { headers: api.headers(), credentials: api.credentials });
      if (!res.ok) throw new Error(`The export failed: HTTP ${res.status}`);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = `mmgen-audit-${api.mode}.jsonl`;
      a.click();
      URL.revokeObjectURL(url);
    } catch (err) {
      setError(err);
    } finally {
      setExporting(false);
    }
  }

  const input = (name: keyof Filters, label: string, props: Record<string, string> = {}) => (
    <label>
      {label}{' '}
      <input name={name} value={form[name]} onChange={(e) => setForm((f) => ({ ...f, [name]: e.target.value }))} {...props} />
    </label>
  );

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Who changed what, when and from where: keys, budgets, webhooks, the moderation policy, the organization's settings, model access and wallet top-ups, with the values before and after. Secrets are never recorded. Each entry is chained to the one before by its hash."
        actions={
          perm.ok ? (
            <Button onClick={exportJsonl} busy={exporting}>
              Export JSON Lines
            </Button>
          ) : undefined
        }
      />
      {!perm.ok ? (
        <Locked perm={perm} what="read the audit log" />
      ) : (
        <>
          <form className="toolbar" role="search" aria-label="Filter the audit log" onSubmit={apply}>
            {input('action', 'Action', { placeholder: 'api_key.* or api_key.revoked' })}
            {input('actor', 'Actor', { placeholder: 'key_…, usr_… or a name' })}
            <label>
              Actor type{' '}
              <select name="actor_type" value={form.actor_type} onChange={(e) => setForm((f) => ({ ...f, actor_type: e.target.value }))}>
                <option value="">Any</option>
                <option value="api_key">API key</option>
                <option value="member">Member</option>
                <option value="operator">Operator</option>
                <option value="system">System</option>
              </select>
            </label>
            {input('target_type', 'Target type', { placeholder: 'api_key, webhook, wallet…' })}
            {input('target_id', 'Target id')}
            {input('since', 'From', { type: 'date' })}
            {input('until', 'To', { type: 'date' })}
            <Button type="submit">Apply</Button>
          </form>
          {error ? <ErrorNotice error={error} /> : null}
          {!items ? (
            !error && <Loading what="Loading the audit log" />
          ) : items.length === 0 ? (
            <Empty title={FILTERS.some((f) => applied[f]) ? 'No entry matches these filters' : 'Nothing recorded yet'} />
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="audit-table">
                <caption className="visually-hidden">Audit log entries, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Action</th>
                    <th scope="col">Actor</th>
                    <th scope="col">Target</th>
                    <th scope="col">From</th>
                    <th scope="col">Values</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((e) => (
                    <tr key={e.id}>
                      <td>{formatDateTime(e.created_at)}</td>
                      <td>
                        <code>{e.action}</code>
                      </td>
                      <td>{actorLabel(e.actor)}</td>
                      <td>
                        {e.target.type} <IdText id={e.target.id} />
                      </td>
                      <td className="small">
                        {e.client_address ?? <span className="muted">outside HTTP</span>}
                        {e.request_id ? <div className="muted">{e.request_id}</div> : null}
                      </td>
                      <td>
                        <Values event={e} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {hasMore && (
            <div className="load-more">
              <Button onClick={more} busy={loadingMore}>
                Load more
              </Button>
            </div>
          )}
        </>
      )}
    </>
  );
}
