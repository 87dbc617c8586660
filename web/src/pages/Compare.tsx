import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, newIdempotencyKey } from '../api/client.js';
import type { Comparison, Generation, Model, Modality } from '../api/types.js';
import { costLabel } from '../components/GenerationRow.js';
import { GenerationMedia } from '../components/Media.js';
import { ImageInput, type ImageValue } from '../components/ImageInput.js';
import { ModalityTabs } from '../components/ModalityTabs.js';
import { fieldNames, SchemaFields, toBody, type RawValues } from '../components/SchemaFields.js';
import { Badge, Button, Card, CopyButton, describedBy, ErrorNotice, Field, Loading, Locked, PageHeader, StatusBadge } from '../components/ui.js';
import { curlFor } from '../lib/curl.js';
import { creditsToUsd, elapsed, formatDuration, formatPrice } from '../lib/format.js';
import { useDocumentTitle, useInterval, useNow, useResource } from '../lib/hooks.js';
import { modalityInfo } from '../lib/modalities.js';
import { Link, navigate, setSearch, useLocation } from '../lib/router.js';
import { validate, type FieldErrors, type JsonSchema } from '../lib/schema.js';
import { useSession } from '../session.js';
import type { Permission } from '../api/spec.js';

const NOT_PARAMS = ['model', 'prompt', 'text', 'messages', 'simulate', 'upload_id', 'image_url', 'cache'];

function usePermissionFor(modality: Modality): Permission {
  const { can, spec } = useSession();
  const base = can('createComparison');
  if (!base.ok) return base;
  // A comparison needs the write scope of its models' modality (contract §3).
  return can(spec.modality(modality)?.operationId ?? '');
}

function CompareForm() {
  const { api, spec, org, key, catalog } = useSession();
  const { search } = useLocation();
  const info = modalityInfo(search.get('modality') ?? 'image');
  const perm = usePermissionFor(info.id);
  const models = useResource(() => catalog(), []);
  const active = useMemo(() => (models.data ?? []).filter((m) => m.modality === info.id && m.status === 'active'), [models.data, info.id]);
  // The plan's width and the modality's endpoint (prompt field, image rule) as the server says them.
  const width = org.limits.models_per_comparison;
  const endpoint = spec.modality(info.id);
  const promptField = endpoint?.promptField ?? null;
  const imageRule = endpoint?.image ?? 'none';
  const schema: JsonSchema = endpoint?.requestSchema ?? { type: 'object', properties: {} };
  const paramsSchema: JsonSchema = { ...schema, required: (schema.required ?? []).filter((r) => !NOT_PARAMS.includes(r)) };
  const names = fieldNames(schema, NOT_PARAMS);
  const simSchema = schema.properties?.simulate;
  const simNames = simSchema ? fieldNames(simSchema, ['output_tokens']) : [];

  const [chosen, setChosen] = useState<string[]>([]);
  const [prompt, setPrompt] = useState('');
  const [values, setValues] = useState<RawValues>({});
  const [image, setImage] = useState<ImageValue>({});
  const [sim, setSim] = useState<RawValues>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    setChosen([]);
    setValues({});
    setImage({});
    setErrors({});
  }, [info.id]);

  function body(): Record<string, unknown> {
    const params = { ...toBody(schema, values, names), ...image };
    const b: Record<string, unknown> = { models: chosen };
    if (promptField) b.prompt = prompt;
    if (Object.keys(params).length) b.params = params;
    if (simSchema && key.mode === 'test') {
      const s = toBody(simSchema, sim, simNames);
      if (Object.keys(s).length) b.simulate = s;
    }
    return b;
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const b = body();
    const found: FieldErrors = {};
    if (chosen.length < 2) found.models = 'Choose at least 2 models.';
    if (promptField && !prompt.trim()) found.prompt = 'is required';
    for (const [p, m] of Object.entries(validate(paramsSchema, b.params ?? {}, 'params'))) {
      found[p === 'params.upload_id' || p === 'params.image_url' ? 'image' : p] ??= m;
    }
    if (imageRule === 'required' && !image.upload_id && !image.image_url) found.image = 'is required: upload an image or give its URL';
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    setError(null);
    try {
      const c = await api.post<Comparison>('/v1/comparisons', b, { idempotencyKey: newIdempotencyKey() });
      navigate(`/compare/${c.id}`);
    } catch (err) {
      setError(err);
      if (err instanceof ApiError && err.param) {
        const p = err.param.startsWith('models') ? 'models' : err.param.replace(/^params\.(upload_id|image_url)$/, 'image');
        setErrors({ [p]: err.message });
      }
      setBusy(false);
    }
  }

  const toggle = (m: Model) => setChosen((c) => (c.includes(m.slug) ? c.filter((x) => x !== m.slug) : [...c, m.slug]));
  const promptLabel = promptField === 'text' ? 'Text' : promptField === 'messages' ? 'Message' : 'Prompt';
  return (
    <Card>
      <ModalityTabs value={info.id} onChange={(id) => setSearch({ modality: id })} />
      {models.error ? <ErrorNotice error={models.error} /> : null}
      {!models.data ? (
        <Loading what="Loading the catalog" />
      ) : (
        <form onSubmit={submit} noValidate aria-label="Comparison">
          <fieldset className={`field${errors.models ? ' field-invalid' : ''}`} aria-describedby="cmp-models-hint">
            <legend>
              Models <span className="muted">(2 to {Math.min(width, active.length)} on the {org.plan} plan)</span>
            </legend>
            <div className="model-choices">
              {active.map((m) => {
                const checked = chosen.includes(m.slug);
                return (
                  <label key={m.slug} className={`model-choice${checked ? ' checked' : ''}`}>
                    <input type="checkbox" name="models" value={m.slug} checked={checked} disabled={!checked && chosen.length >= width} onChange={() => toggle(m)} />
                    <span>
                      <span className="model-choice-name">{m.display_name}</span>
                      <span className="muted small">
                        {m.provider} · {formatPrice(m.pricing)}
                      </span>
                    </span>
                  </label>
                );
              })}
            </div>
            <div className="hint" id="cmp-models-hint">
              {chosen.length} selected. Credits for every model are reserved at once; if the wallet cannot cover them all, nothing is charged.
            </div>
            {errors.models && (
              <div className="field-error" role="alert">
                {errors.models}
              </div>
            )}
          </fieldset>
          {promptField && (
            <Field id="cmp-prompt" label={promptLabel} required error={errors.prompt}>
              <textarea
                id="cmp-prompt"
                name="prompt"
                rows={3}
                value={prompt}
                onChange={(e) => setPrompt(e.target.value)}
                aria-invalid={errors.prompt ? true : undefined}
                aria-describedby={describedBy('cmp-prompt', null, errors.prompt)}
              />
            </Field>
          )}
          <SchemaFields schema={schema} names={names} values={values} onChange={(n, v) => setValues((x) => ({ ...x, [n]: v }))} errors={errors} errorPrefix="params." idPrefix="cmp" />
          {imageRule !== 'none' && <ImageInput value={image} onChange={setImage} required={imageRule === 'required'} error={errors.image} />}
          {simSchema && key.mode === 'test' && (
            <details className="advanced">
              <summary>Simulator</summary>
              <SchemaFields schema={simSchema} names={simNames} values={sim} onChange={(n, v) => setSim((x) => ({ ...x, [n]: v }))} errors={errors} errorPrefix="simulate." idPrefix="cmp-sim" />
            </details>
          )}
          {error ? <ErrorNotice error={error} title="The comparison was not started" /> : null}
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={busy} perm={perm}>
              Compare {chosen.length || ''} models
            </Button>
            <CopyButton text={curlFor('POST', '/v1/comparisons', body())} label="Copy as curl" size="md" />
          </div>
        </form>
      )}
    </Card>
  );
}

function ChildCard({ g, model, best }: { g: Generation; model: Model | undefined; best: string[] }) {
  const now = useNow(250, g.status === 'queued' || g.status === 'running');
  const took = elapsed(g.created_at, g.completed_at) ?? now - new Date(g.created_at).getTime();
  return (
    <article className="card compare-card" data-testid="compare-child" data-status={g.status} aria-label={model?.display_name ?? g.model}>
      <header className="card-header">
        <h2>{model?.display_name ?? g.model}</h2>
        <StatusBadge status={g.status} />
      </header>
      <div className="compare-facts">
        <span>
          <span className="muted small">Time</span> <strong data-testid="child-time">{formatDuration(Math.max(0, took))}</strong>
        </span>
        <span>
          <span className="muted small">Cost</span> <strong data-testid="child-cost">{costLabel(g)}</strong>
        </span>
        {best.map((b) => (
          <Badge key={b} tone="green">
            {b}
          </Badge>
        ))}
      </div>
      {g.status === 'succeeded' && <GenerationMedia generation={g} />}
      {(g.status === 'queued' || g.status === 'running') && (
        <div className="bar" role="progressbar" aria-label={`${g.model} in progress`}>
          <span />
        </div>
      )}
      {g.error && (
        <div className="notice notice-error">
          <strong>{g.error.code}</strong> {g.error.message}
        </div>
      )}
      <p className="small">
        <Link to={`/generations/${g.id}`}>Details</Link>
      </p>
    </article>
  );
}

function ComparisonResult({ id }: { id: string }) {
  const { api, can, catalog } = useSession();
  const perm = can('getComparison');
  const cmp = useResource((signal) => api.get<Comparison>(`/v1/comparisons/${encodeURIComponent(id)}`, { signal }), [id], { enabled: perm.ok });
  const models = useResource(() => catalog(), []);
  const c = cmp.data;
  // Children finish one by one: poll the comparison until every child is terminal, every
  // second at first, then every 3 s (a free plan's key has 60 requests a minute).
  const age = c ? Date.now() - new Date(c.created_at).getTime() : 0;
  useInterval(
    () => {
      api.get<Comparison>(`/v1/comparisons/${encodeURIComponent(id)}`).then(cmp.set, () => {});
    },
    age < 15_000 ? 1000 : 3000,
    Boolean(c && c.status !== 'completed'),
  );
  if (!perm.ok) return <Locked perm={perm} what="read comparisons" />;
  if (cmp.error && !c) return <ErrorNotice error={cmp.error} />;
  if (!c) return <Loading what="Loading the comparison" />;

  const done = c.generations.filter((g) => g.status === 'succeeded');
  const fastest = done.length > 1 ? done.reduce((a, b) => (elapsed(a.created_at, a.completed_at)! <= elapsed(b.created_at, b.completed_at)! ? a : b)) : null;
  const cheapest = done.length > 1 && done.some((g) => g.charged_credits > 0) ? done.reduce((a, b) => (a.charged_credits <= b.charged_credits ? a : b)) : null;
  const bySlug = new Map((models.data ?? []).map((m) => [m.slug, m]));
  const finished = c.generations.filter((g) => g.status !== 'queued' && g.status !== 'running').length;
  return (
    <>
      <Card>
        <dl className="kv kv-inline">
          <dt>Status</dt>
          <dd data-testid="comparison-status">
            <StatusBadge status={c.status} /> {finished} of {c.generations.length} finished
          </dd>
          <dt>Modality</dt>
          <dd>{modalityInfo(c.modality).label}</dd>
          {c.prompt && (
            <>
              <dt>Prompt</dt>
              <dd>{c.prompt}</dd>
            </>
          )}
          <dt>Reserved</dt>
          <dd>{creditsToUsd(c.reserved_credits)}</dd>
          {c.completed_at && (
            <>
              <dt>Total time</dt>
              <dd>{formatDuration(elapsed(c.created_at, c.completed_at)!)}</dd>
            </>
          )}
        </dl>
      </Card>
      <div className="compare-grid">
        {c.generations.map((g) => (
          <ChildCard key={g.id} g={g} model={bySlug.get(g.model)} best={[...(fastest?.id === g.id ? ['fastest'] : []), ...(cheapest?.id === g.id ? ['cheapest'] : [])]} />
        ))}
      </div>
    </>
  );
}

export function Compare({ id }: { id?: string }) {
  useDocumentTitle(id ? `Comparison ${id}` : 'Compare');
  return (
    <>
      {id && (
        <nav className="breadcrumbs" aria-label="Breadcrumbs">
          <Link to="/compare">Compare</Link> / <span>{id}</span>
        </nav>
      )}
      <PageHeader
        title={id ? 'Comparison' : 'Compare models'}
        description="One prompt, several models side by side: see each result as it finishes, with its cost and time."
        actions={
          id ? (
            <Link className="btn btn-secondary btn-md" to="/compare">
              New comparison
            </Link>
          ) : undefined
        }
      />
      {id ? <ComparisonResult id={id} /> : <CompareForm />}
    </>
  );
}
