import { useEffect, useState } from 'react';
import { query } from '../api/client.js';
import { TERMINAL, type Generation, type List } from '../api/types.js';
import { costLabel, GenerationRow } from '../components/GenerationRow.js';
import { Thumb } from '../components/Media.js';
import { Button, Empty, ErrorNotice, Loading, Locked, PageHeader, StatusBadge } from '../components/ui.js';
import { useDocumentTitle, useInterval } from '../lib/hooks.js';
import { relativeTime } from '../lib/format.js';
import { MODALITY_INFO, modalityInfo } from '../lib/modalities.js';
import { Link, setSearch, useLocation } from '../lib/router.js';
import { useSession } from '../session.js';

const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'];
const PAGE = 24;

export function Generations() {
  useDocumentTitle('Generations');
  const { api, can } = useSession();
  const { search } = useLocation();
  const status = search.get('status') ?? '';
  const modality = search.get('modality') ?? '';
  const view = search.get('view') === 'list' ? 'list' : 'grid';
  const perm = can('listGenerations');
  const [items, setItems] = useState<Generation[] | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);

  const page = (after?: string) => api.get<List<Generation>>(`/v1/generations${query({ status, modality, limit: PAGE, starting_after: after })}`);

  useEffect(() => {
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
  }, [status, modality, perm.ok]);

  // Work in flight is refreshed in place until it settles: one request for the first page
  // each time, however many are pending, to stay well inside the key's rate limit.
  const pending = (items ?? []).some((g) => !TERMINAL.includes(g.status));
  useInterval(
    async () => {
      const fresh = await page().catch(() => null);
      if (!fresh) return;
      const byId = new Map(fresh.data.map((g) => [g.id, g]));
      setItems((xs) => {
        if (!xs) return xs;
        const known = new Set(xs.map((g) => g.id));
        const newer = fresh.data.filter((g) => !known.has(g.id) && g.created_at > (xs[0]?.created_at ?? ''));
        return [...newer, ...xs.map((g) => byId.get(g.id) ?? g)];
      });
    },
    3000,
    pending,
  );

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

  return (
    <>
      <PageHeader title="Generations" description="Everything this key's mode generated, newest first." />
      {!perm.ok ? (
        <Locked perm={perm} what="list generations" />
      ) : (
        <>
          <div className="toolbar" role="search" aria-label="Filter generations">
            <label>
              Status{' '}
              <select value={status} onChange={(e) => setSearch({ status: e.target.value })}>
                <option value="">Any</option>
                {STATUSES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </label>
            <label>
              Modality{' '}
              <select value={modality} onChange={(e) => setSearch({ modality: e.target.value })}>
                <option value="">Any</option>
                {MODALITY_INFO.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.label}
                  </option>
                ))}
              </select>
            </label>
            <div className="segmented" role="group" aria-label="View">
              <button type="button" aria-pressed={view === 'grid'} onClick={() => setSearch({ view: null })}>
                Gallery
              </button>
              <button type="button" aria-pressed={view === 'list'} onClick={() => setSearch({ view: 'list' })}>
                List
              </button>
            </div>
          </div>
          {error ? <ErrorNotice error={error} /> : null}
          {!items ? (
            !error && <Loading what="Loading generations" />
          ) : items.length === 0 ? (
            <Empty title={status || modality ? 'No generation matches these filters' : 'Nothing generated yet'}>
              Run one in the <Link to="/playground">playground</Link>.
            </Empty>
          ) : view === 'grid' ? (
            <ul className="gallery" data-testid="gallery">
              {items.map((g) => (
                <li key={g.id} className="gallery-item">
                  {/* Named by what it shows (WCAG 2.5.3, label in name), the modality first for screen readers. */}
                  <Link to={`/generations/${g.id}`} className="gallery-link">
                    <Thumb generation={g} />
                    <span className="gallery-meta">
                      {g.prompt ? <span className="visually-hidden">{modalityInfo(g.modality).label}: </span> : null}
                      <span className="gallery-prompt">{g.prompt ?? modalityInfo(g.modality).label}</span>
                      <span className="gallery-sub">
                        <StatusBadge status={g.status} />
                        <span className="muted small">
                          {g.model} · {costLabel(g)} · {relativeTime(g.created_at)}
                        </span>
                      </span>
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          ) : (
            <ul className="gen-list">
              {items.map((g) => (
                <GenerationRow key={g.id} generation={g} />
              ))}
            </ul>
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
