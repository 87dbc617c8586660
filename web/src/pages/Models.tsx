import { useMemo } from 'react';
import { Badge, Empty, ErrorNotice, Loading, PageHeader, StatusBadge } from '../components/ui.js';
import { PriceTiers } from '../components/PriceTiers.js';
import { formatPrice } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { MODALITY_INFO, modalityInfo } from '../lib/modalities.js';
import { Link, setSearch, useLocation } from '../lib/router.js';
import { useSession } from '../session.js';

export function Models() {
  useDocumentTitle('Models');
  const { catalog } = useSession();
  const { search } = useLocation();
  const modality = search.get('modality') ?? '';
  const text = search.get('q') ?? '';
  const delisted = search.get('delisted') === '1';
  const models = useResource(() => catalog(), []);

  const shown = useMemo(() => {
    const q = text.trim().toLowerCase();
    return (models.data ?? []).filter(
      (m) =>
        (!modality || m.modality === modality) &&
        (delisted || m.status === 'active') &&
        (!q || [m.slug, m.display_name, m.provider, ...m.capabilities].some((s) => s.toLowerCase().includes(q))),
    );
  }, [models.data, modality, text, delisted]);

  const counts = useMemo(() => {
    const c: Record<string, number> = {};
    for (const m of models.data ?? []) if (delisted || m.status === 'active') c[m.modality] = (c[m.modality] ?? 0) + 1;
    return c;
  }, [models.data, delisted]);

  return (
    <>
      <PageHeader title="Models" description="The catalog: every model, its provider, capabilities and price per unit, with what each priced variant reserves here (the server's figures). 1 credit = US$0.001." />
      <div className="toolbar" role="search" aria-label="Filter models">
        <div className="segmented segmented-wrap" role="group" aria-label="Modality">
          <button type="button" aria-pressed={!modality} onClick={() => setSearch({ modality: null })}>
            All
          </button>
          {MODALITY_INFO.map((m) => (
            <button key={m.id} type="button" aria-pressed={modality === m.id} onClick={() => setSearch({ modality: m.id })}>
              {m.label} <span className="muted">{counts[m.id] ?? 0}</span>
            </button>
          ))}
        </div>
        <label className="grow">
          <span className="visually-hidden">Search models</span>
          <input type="search" placeholder="Search by name, provider or capability" value={text} onChange={(e) => setSearch({ q: e.target.value })} />
        </label>
        <label className="check">
          <input type="checkbox" checked={delisted} onChange={(e) => setSearch({ delisted: e.target.checked ? '1' : null })} /> Include delisted
        </label>
      </div>
      {models.error ? <ErrorNotice error={models.error} /> : null}
      {!models.data ? (
        !models.error && <Loading what="Loading the catalog" />
      ) : shown.length === 0 ? (
        <Empty title="No model matches" />
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="models-table">
            <caption className="visually-hidden">{shown.length} models</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Modality</th>
                <th scope="col">Provider</th>
                <th scope="col">Price</th>
                <th scope="col">Capabilities</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => (
                <tr key={m.id}>
                  <td>
                    <div className="strong">{m.display_name}</div>
                    <code className="small">{m.slug}</code> {m.status !== 'active' && <StatusBadge status={m.status} />}
                  </td>
                  <td>{modalityInfo(m.modality).label}</td>
                  <td>{m.provider}</td>
                  <td>
                    <div className="nowrap">{formatPrice(m.pricing)}</div>
                    <PriceTiers model={m} />
                  </td>
                  <td>
                    <span className="caps">
                      {m.capabilities.map((c) => (
                        <Badge key={c}>{c}</Badge>
                      ))}
                    </span>
                  </td>
                  <td>
                    {m.status === 'active' ? (
                      <Link to={`/playground?modality=${encodeURIComponent(m.modality)}&model=${encodeURIComponent(m.slug)}`} aria-label={`Try ${m.display_name} in the playground`}>
                        Try
                      </Link>
                    ) : (
                      <span className="muted small">unavailable</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
