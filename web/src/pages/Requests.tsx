import { useState, type FormEvent } from 'react';
import type { List, RequestRecord } from '../api/types.js';
import { RetentionSettings } from '../components/RetentionSettings.js';
import { Button, Empty, ErrorNotice, Field, Loading, Locked, PageHeader } from '../components/ui.js';
import { formatShort } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { Link, navigate, useLocation } from '../lib/router.js';
import { useSession } from '../session.js';

/** The filters GET /v1/requests takes, as the page's query string keeps them (a link to one request is `?request_id=…`). */
const FILTERS = [
  { name: 'request_id', label: 'Request id', placeholder: 'req_…' },
  { name: 'status', label: 'Status', placeholder: '429 or 4xx' },
  { name: 'route', label: 'Route', placeholder: '/v1/images' },
  { name: 'model', label: 'Model', placeholder: 'flux-schnell' },
  { name: 'key_id', label: 'API key id', placeholder: 'key_…' },
] as const;

/** A link to a request's row in the request log, for wherever a request id is shown. */
export function RequestLink({ id }: { id: string }) {
  return (
    <Link to={`/requests?request_id=${encodeURIComponent(id)}`} className="mono">
      {id}
    </Link>
  );
}

export function Requests() {
  useDocumentTitle('Requests');
  const { api, can, key } = useSession();
  const perm = can('listRequests');
  const { search } = useLocation();
  const query = new URLSearchParams();
  for (const f of FILTERS) {
    const v = search.get(f.name);
    if (v) query.set(f.name, v);
  }
  const after = search.get('starting_after');
  if (after) query.set('starting_after', after);
  query.set('limit', '50');
  const qs = query.toString();
  const rows = useResource((signal) => api.get<List<RequestRecord>>(`/v1/requests?${qs}`, { signal }), [qs], { enabled: perm.ok });
  const [form, setForm] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map((f) => [f.name, search.get(f.name) ?? ''])));

  function apply(e: FormEvent) {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) if (v.trim()) q.set(k, v.trim());
    navigate(`/requests${q.size ? `?${q}` : ''}`);
  }
  const filtered = new URLSearchParams(qs);
  filtered.delete('limit');
  filtered.delete('starting_after');

  return (
    <>
      <PageHeader
        title="Requests"
        description={`Every API call of this organization's ${key.mode} mode, refused ones included, with its status, error code, latency and cost.`}
      />
      {!perm.ok ? (
        <Locked perm={perm} what="read the request log" />
      ) : (
        <>
          <form className="filters" onSubmit={apply} aria-label="Filter requests">
            {FILTERS.map((f) => (
              <Field key={f.name} id={`rq-${f.name}`} label={f.label}>
                <input
                  id={`rq-${f.name}`}
                  name={f.name}
                  placeholder={f.placeholder}
                  value={form[f.name] ?? ''}
                  onChange={(e) => setForm({ ...form, [f.name]: e.target.value })}
                />
              </Field>
            ))}
            <div className="filters-actions">
              <Button variant="primary" type="submit">
                Search
              </Button>
            </div>
          </form>
          {rows.error ? (
            <ErrorNotice error={rows.error} />
          ) : !rows.data ? (
            <Loading what="Loading requests" />
          ) : rows.data.data.length === 0 ? (
            <Empty title="No requests found">Calls appear here a moment after they are answered.</Empty>
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="requests-table">
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Request</th>
                    <th scope="col">Route</th>
                    <th scope="col">Status</th>
                    <th scope="col">Model</th>
                    <th scope="col">Generation</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Cost (credits)</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.data.data.map((r) => (
                    <tr key={r.id} data-status={r.status}>
                      <td className="nowrap">{formatShort(r.created_at)}</td>
                      <td className="mono small">{r.id}</td>
                      <td className="mono small">{r.route}</td>
                      <td>
                        <code>{r.status}</code> {r.error_code && <code>{r.error_code}</code>}
                      </td>
                      <td>{r.model ?? '—'}</td>
                      <td>{r.generation_id ? <Link to={`/generations/${r.generation_id}`} className="mono small">{r.generation_id}</Link> : '—'}</td>
                      <td className="nowrap">{r.latency_ms} ms</td>
                      <td>{r.cost_credits ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {rows.data.has_more && (
                <p>
                  <Link to={`/requests?${new URLSearchParams({ ...Object.fromEntries(filtered), starting_after: rows.data.data.at(-1)!.id })}`}>Older requests</Link>
                </p>
              )}
            </div>
          )}
        </>
      )}
      <RetentionSettings />
    </>
  );
}
