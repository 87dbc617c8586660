import { useEffect, useState } from 'react';
import { ApiError, newIdempotencyKey } from '../api/client.js';
import { followGeneration } from '../api/sse.js';
import { TERMINAL, type Generation } from '../api/types.js';
import { GenerationMedia } from '../components/Media.js';
import { GenerationProgress } from '../components/GenerationProgress.js';
import { Button, Card, CopyButton, ErrorNotice, IdText, Loading, Locked, PageHeader, Stat, StatusBadge, useToast } from '../components/ui.js';
import { curlFor } from '../lib/curl.js';
import { creditsToUsd, elapsed, formatCredits, formatDateTime, formatDuration } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { useAction } from '../lib/actions.js';
import { modalityInfo } from '../lib/modalities.js';
import { Link } from '../lib/router.js';
import { useSession } from '../session.js';

export function GenerationDetail({ id }: { id: string }) {
  useDocumentTitle(id);
  const { api, can, spec } = useSession();
  const toast = useToast();
  const perm = can('getGeneration');
  const gen = useResource((signal) => api.get<Generation>(`/v1/generations/${encodeURIComponent(id)}`, { signal }), [id], { enabled: perm.ok });
  const [seen, setSeen] = useState<Record<string, number>>({});
  const { busy, error: actionError, run } = useAction<'cancel' | 'retry'>();
  const g = gen.data;
  const live = g ? !TERMINAL.includes(g.status) : false;

  // Live while the generation is not terminal: the API's event stream pushes each state change.
  useEffect(() => {
    if (!live || !g) return;
    const ac = new AbortController();
    followGeneration(
      api,
      g.id,
      (next) => {
        setSeen((s) => (next.status in s ? s : { ...s, [next.status]: Date.now() }));
        gen.set(next);
      },
      ac.signal,
    ).catch(() => {});
    return () => ac.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [live, g?.id]);

  const act = (kind: 'cancel' | 'retry') =>
    run(kind, async () => {
      const next = await api.post<Generation>(`/v1/generations/${encodeURIComponent(id)}/${kind}`, undefined, kind === 'retry' ? { idempotencyKey: newIdempotencyKey() } : {});
      setSeen({});
      gen.set(next);
      toast(kind === 'cancel' ? 'Generation canceled; its reservation was refunded.' : 'Retry queued.');
    });

  if (!perm.ok) {
    return (
      <>
        <PageHeader title="Generation" />
        <Locked perm={perm} what="read generations" />
      </>
    );
  }
  if (gen.error && !g) {
    return (
      <>
        <PageHeader title="Generation" />
        <ErrorNotice error={gen.error} title={gen.error instanceof ApiError && gen.error.status === 404 ? 'No such generation for this key' : undefined} />
        <Link to="/generations">Back to generations</Link>
      </>
    );
  }
  if (!g) return <Loading what="Loading the generation" />;

  const info = modalityInfo(g.modality);
  const took = elapsed(g.created_at, g.completed_at);
  const cancelable = g.status === 'queued' || g.status === 'running';
  // Whether the modality answers in the request, as the server declares it (x-mmgen-modality).
  const sync = spec.modality(g.modality)?.sync ?? false;
  const retryable = g.status === 'failed' && !sync;
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link to="/generations">Generations</Link> / <span>{g.id}</span>
      </nav>
      <PageHeader
        title={g.prompt ? (g.prompt.length > 80 ? `${g.prompt.slice(0, 80)}…` : g.prompt) : `${info.label} generation`}
        description={
          <>
            <StatusBadge status={g.status} /> {info.label} · <span className="mono">{g.model}</span> · {formatDateTime(g.created_at)}
            {took !== null && ` · took ${formatDuration(took)}`}
          </>
        }
        actions={
          <>
            {cancelable && (
              <Button variant="danger" onClick={() => act('cancel')} busy={busy === 'cancel'} perm={can('cancelGeneration')}>
                Cancel
              </Button>
            )}
            {retryable && (
              <Button variant="primary" onClick={() => act('retry')} busy={busy === 'retry'} perm={can('retryGeneration')}>
                Retry
              </Button>
            )}
            {g.status === 'failed' && sync && <span className="muted small">Synchronous requests are retried by sending them again.</span>}
          </>
        }
      />
      {actionError ? <ErrorNotice error={actionError} title="The action failed" /> : null}
      <div className="split">
        <Card title="Output">
          {live && <GenerationProgress generation={g} seen={seen} />}
          {g.error && (
            <div className="notice notice-error" role="alert" data-testid="generation-error">
              <strong>{g.error.code}</strong>
              <p>{g.error.message}</p>
            </div>
          )}
          {(g.prompt_expired_at || g.files_expired_at) && (
            <p className="notice" data-testid="generation-expired">
              {g.files_expired_at && <>Its files were deleted on {formatDateTime(g.files_expired_at)} under the organization's retention. </>}
              {g.prompt_expired_at && <>Its prompt was removed on {formatDateTime(g.prompt_expired_at)} under the organization's retention.</>}
            </p>
          )}
          {g.files_expired_at ? null : g.status === 'succeeded' || g.outputs.length > 0 ? <GenerationMedia generation={g} /> : !live && !g.error && <p className="muted">No output ({g.status}).</p>}
        </Card>
        <div className="stack">
          <Card title="Credits">
            <div className="stats stats-3" data-testid="credits">
              <Stat label="Reserved" value={formatCredits(g.reserved_credits)} sub={creditsToUsd(g.reserved_credits)} />
              <Stat label="Charged" value={formatCredits(g.charged_credits)} sub={creditsToUsd(g.charged_credits)} />
              <Stat label="Refunded" value={formatCredits(g.refunded_credits)} sub={creditsToUsd(g.refunded_credits)} />
            </div>
            {!g.livemode && <p className="muted small">Test mode: nothing is reserved or charged.</p>}
            {g.cache_hit && <p className="muted small">Answered from the cache: nothing was charged.</p>}
          </Card>
          <Card title="Details">
            <dl className="kv">
              <dt>Id</dt>
              <dd>
                <IdText id={g.id} />
              </dd>
              <dt>Mode</dt>
              <dd>{g.livemode ? 'live' : 'test'}</dd>
              <dt>Created</dt>
              <dd>{formatDateTime(g.created_at)}</dd>
              <dt>Completed</dt>
              <dd>{formatDateTime(g.completed_at)}</dd>
              {g.comparison_id && (
                <>
                  <dt>Comparison</dt>
                  <dd>
                    <Link to={`/compare/${g.comparison_id}`}>{g.comparison_id}</Link>
                  </dd>
                </>
              )}
              {g.usage && (
                <>
                  <dt>Tokens</dt>
                  <dd>
                    {g.usage.input_tokens} in · {g.usage.output_tokens} out
                  </dd>
                </>
              )}
            </dl>
            <h3 className="subhead">Parameters</h3>
            <pre className="code">{JSON.stringify(g.params, null, 2)}</pre>
            <div className="form-actions">
              <CopyButton text={curlFor('GET', `/v1/generations/${g.id}`)} label="Copy GET as curl" />
              <Link className="btn btn-secondary btn-sm" to={`/playground?modality=${encodeURIComponent(g.modality)}&model=${encodeURIComponent(g.model)}`}>
                Open the model in the playground
              </Link>
            </div>
          </Card>
        </div>
      </div>
    </>
  );
}
