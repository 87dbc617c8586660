import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { ApiError, newIdempotencyKey } from '../api/client.js';
import { followGeneration } from '../api/sse.js';
import type { Generation, Model, Modality, Quote } from '../api/types.js';
import { GenerationMedia } from '../components/Media.js';
import { GenerationProgress } from '../components/GenerationProgress.js';
import { ImageInput, type ImageValue } from '../components/ImageInput.js';
import { ModalityTabs } from '../components/ModalityTabs.js';
import { fieldNames, SchemaFields, toBody, type RawValues } from '../components/SchemaFields.js';
import { Badge, Button, Card, CopyButton, ErrorNotice, Field, Loading, PageHeader, describedBy } from '../components/ui.js';
import { costLabel } from '../components/GenerationRow.js';
import { curlFor } from '../lib/curl.js';
import { creditsToUsd, formatCredits, formatPrice } from '../lib/format.js';
import { PriceTiers } from '../components/PriceTiers.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { modalityInfo } from '../lib/modalities.js';
import { Link, setSearch, useLocation } from '../lib/router.js';
import { validate, type FieldErrors, type JsonSchema } from '../lib/schema.js';
import { useSession } from '../session.js';

/** Fields with their own widgets (model picker, image input, chat, simulator), or tucked under "Advanced". */
const SPECIAL = ['model', 'simulate', 'upload_id', 'image_url', 'messages'];
const ADVANCED = ['seed', 'cache'];

interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

interface Run {
  generation: Generation | null;
  error: unknown;
  busy: boolean;
  /** When each status was first seen, for the progress timeline. */
  seen: Record<string, number>;
}

const IDLE: Run = { generation: null, error: null, busy: false, seen: {} };

/** Maps the API's `param` names onto this form's inputs. */
function fieldOfParam(param: string): string {
  if (param === 'upload_id' || param === 'image_url') return 'image';
  if (param.startsWith('messages')) return 'message';
  return param;
}

export function ModelPicker({ models, value, onChange, id }: { models: Model[]; value: string; onChange: (slug: string) => void; id: string }) {
  const model = models.find((m) => m.slug === value);
  return (
    <Field id={id} label="Model" hint={model ? `${model.provider} · ${formatPrice(model.pricing)}` : undefined} required>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={describedBy(id, model, null)}>
        {models.map((m) => (
          <option key={m.slug} value={m.slug}>
            {m.display_name} — {formatPrice(m.pricing)}
          </option>
        ))}
      </select>
      {model && model.pricing.tiers.length > 1 ? <PriceTiers model={model} compact /> : null}
    </Field>
  );
}

/** How long the form rests before it is quoted: a quote per pause in typing, not per keystroke. */
const QUOTE_DELAY_MS = 250;

/**
 * What the request would reserve, as the server quotes it (POST /v1/quotes, priced by the function that prices the
 * request when it is sent): the dashboard keeps no price formula of its own. Asked again, debounced, as the form changes.
 */
function Estimate({ modality, model, body }: { modality: Modality; model: Model | undefined; body: Record<string, unknown> }) {
  const { api, key, can } = useSession();
  const [quote, setQuote] = useState<{ credits: number } | { error: string } | null>(null);
  const allowed = can('createQuote').ok && key.mode === 'live';
  const request = JSON.stringify({ modality, ...body });
  // A request without a field its model's parameters require is not quoted (it would only be refused): the page says so.
  const required = (model?.parameters as { required?: string[] } | undefined)?.required ?? [];
  const missing = required.filter((f) => f !== 'model' && (body[f] === undefined || body[f] === ''));
  const incomplete = missing.length > 0;
  useEffect(() => {
    if (!model || !allowed || incomplete) return;
    const ac = new AbortController();
    const timer = setTimeout(() => {
      api.post<Quote>('/v1/quotes', JSON.parse(request), { signal: ac.signal }).then(
        (q) => setQuote({ credits: q.credits }),
        (err: unknown) => {
          if ((err as Error).name !== 'AbortError') setQuote({ error: err instanceof ApiError ? err.message : 'The price could not be had.' });
        },
      );
    }, QUOTE_DELAY_MS);
    return () => {
      clearTimeout(timer);
      ac.abort();
    };
  }, [api, request, model, allowed, incomplete]);
  if (!model) return null;
  if (key.mode === 'test') return <p className="estimate muted">Free in test mode (the simulator answers; nothing is charged).</p>;
  if (!allowed) return null;
  if (incomplete) return <p className="estimate muted" data-testid="estimate">Priced once the request has {missing.join(', ')}.</p>;
  if (!quote) return <p className="estimate muted" data-testid="estimate" aria-busy="true">Pricing this request…</p>;
  if ('error' in quote) return <p className="estimate muted" data-testid="estimate">Priced once the request is valid: {quote.error}</p>;
  return (
    <p className="estimate" data-testid="estimate" data-credits={quote.credits}>
      Reserves {formatCredits(quote.credits)} ({creditsToUsd(quote.credits)}) when sent;{' '}
      {modality === 'chat' ? 'charged for the output tokens actually produced.' : 'charged on success, refunded in full on failure.'}
    </p>
  );
}

export function Playground() {
  useDocumentTitle('Playground');
  const { api, can, spec, key, catalog } = useSession();
  const { search } = useLocation();
  const info = modalityInfo(search.get('modality') ?? 'image');
  const models = useResource(() => catalog(), []);
  const active = useMemo(() => (models.data ?? []).filter((m) => m.modality === info.id && m.status === 'active'), [models.data, info.id]);
  const slug = active.some((m) => m.slug === search.get('model')) ? search.get('model')! : (active[0]?.slug ?? '');
  const model = active.find((m) => m.slug === slug);
  // The modality's endpoint as the server declares it (x-mmgen-modality): path, sync, image rule.
  const endpoint = spec.modality(info.id);
  const op = endpoint ? spec.op(endpoint.operationId) : undefined;
  const path = endpoint?.path ?? '';
  const sync = endpoint?.sync ?? true;
  const modalityImage = endpoint?.image ?? 'none';
  // The chosen model's own `parameters` (its fields, enums and ranges, as its routes document them); the
  // modality's request schema while the catalog loads.
  const parameters = model?.parameters as (JsonSchema & { 'x-mmgen-image'?: string }) | undefined;
  const schema: JsonSchema = parameters ?? op?.requestSchema ?? { type: 'object', properties: {} };
  const imageInput: 'none' | 'optional' | 'required' = !parameters
    ? modalityImage
    : !parameters.properties?.upload_id
      ? 'none'
      : parameters['x-mmgen-image'] === 'required' || modalityImage === 'required'
        ? 'required'
        : 'optional';
  const simSchema = schema.properties?.simulate;
  const perm = can(op?.operationId ?? '');

  const [values, setValues] = useState<RawValues>({});
  const [image, setImage] = useState<ImageValue>({});
  const [sim, setSim] = useState<RawValues>({});
  const [system, setSystem] = useState('');
  const [history, setHistory] = useState<ChatMessage[]>([]);
  const [message, setMessage] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [run, setRun] = useState<Run>(IDLE);
  const follow = useRef<AbortController | null>(null);

  // A new modality is a new form.
  useEffect(() => {
    setValues({});
    setImage({});
    setSim({});
    setHistory([]);
    setMessage('');
    setErrors({});
    setRun(IDLE);
    follow.current?.abort();
  }, [info.id]);
  useEffect(() => () => follow.current?.abort(), []);

  const mainNames = fieldNames(schema, [...SPECIAL, ...ADVANCED]);
  const advancedNames = fieldNames(schema, SPECIAL).filter((n) => ADVANCED.includes(n));
  const simNames = simSchema ? fieldNames(simSchema, info.id === 'chat' ? [] : ['output_tokens']) : [];

  function buildBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { model: slug, ...toBody(schema, values, [...mainNames, ...advancedNames]), ...(imageInput === 'none' ? {} : image) };
    if (info.id === 'chat') {
      body.messages = [...(system.trim() ? [{ role: 'system', content: system }] : []), ...history, ...(message.trim() ? [{ role: 'user', content: message }] : [])];
    }
    if (simSchema && key.mode === 'test') {
      const s = toBody(simSchema, sim, simNames);
      if (Object.keys(s).length) body.simulate = s;
    }
    return body;
  }
  const body = buildBody();

  function check(b: Record<string, unknown>): FieldErrors {
    const found: FieldErrors = {};
    for (const [param, msg] of Object.entries(validate(schema, b))) found[fieldOfParam(param)] ??= msg;
    if (imageInput === 'required' && !b.upload_id && !b.image_url) found.image ??= 'is required: upload an image or give its URL';
    if (info.id === 'chat' && !message.trim()) found.message = 'is required';
    return found;
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const b = buildBody();
    const found = check(b);
    setErrors(found);
    if (Object.keys(found).length) {
      requestAnimationFrame(() => document.querySelector<HTMLElement>('.playground-form [aria-invalid="true"]')?.focus());
      return;
    }
    follow.current?.abort();
    const ac = new AbortController();
    follow.current = ac;
    setRun({ generation: null, error: null, busy: true, seen: {} });
    try {
      const g = await api.post<Generation>(path, b, { idempotencyKey: newIdempotencyKey(), signal: ac.signal });
      const seenAt = (s: Record<string, number>, status: string) => (status in s ? s : { ...s, [status]: Date.now() });
      setRun((r) => ({ ...r, generation: g, seen: seenAt(r.seen, g.status) }));
      if (info.id === 'chat' && g.message) {
        setHistory((h) => [...h, { role: 'user', content: message }, { role: 'assistant', content: g.message!.content }]);
        setMessage('');
      }
      if (!sync) {
        await followGeneration(api, g.id, (next) => setRun((r) => ({ ...r, generation: next, seen: seenAt(r.seen, next.status) })), ac.signal);
      }
      setRun((r) => ({ ...r, busy: false }));
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      if (err instanceof ApiError && err.param) setErrors({ [fieldOfParam(err.param)]: err.message });
      setRun((r) => ({ ...r, error: err, busy: false }));
    }
  }

  const g = run.generation;
  return (
    <>
      <PageHeader title="Playground" description="Try any model of the catalog. Every run is a real API request; copy it as curl to script it." />
      <ModalityTabs value={info.id} onChange={(id) => setSearch({ modality: id, model: null })} />
      <div className="split">
        <Card className="playground-form">
          {models.error ? <ErrorNotice error={models.error} /> : null}
          {!models.data ? (
            <Loading what="Loading the catalog" />
          ) : (
            <form onSubmit={submit} noValidate aria-label={`${info.label} request`}>
              <ModelPicker id="pg-model" models={active} value={slug} onChange={(s) => setSearch({ model: s })} />
              {model && (
                <p className="caps">
                  {model.capabilities.map((c) => (
                    <Badge key={c}>{c}</Badge>
                  ))}
                </p>
              )}
              {info.id === 'chat' && (
                <>
                  <Field id="pg-system" label="System prompt" hint="Optional instructions for the assistant.">
                    <textarea id="pg-system" rows={2} value={system} onChange={(e) => setSystem(e.target.value)} aria-describedby="pg-system-hint" />
                  </Field>
                  {history.length > 0 && (
                    <div className="conversation" aria-label="Conversation">
                      {history.map((m, i) => (
                        <div key={i} className={`chat-bubble chat-${m.role}`}>
                          <span className="visually-hidden">{m.role}: </span>
                          {m.content}
                        </div>
                      ))}
                      <Button size="sm" variant="ghost" onClick={() => setHistory([])}>
                        Clear the conversation
                      </Button>
                    </div>
                  )}
                  <Field id="pg-message" label="Message" required error={errors.message}>
                    <textarea
                      id="pg-message"
                      name="message"
                      rows={3}
                      value={message}
                      onChange={(e) => setMessage(e.target.value)}
                      aria-invalid={errors.message ? true : undefined}
                      aria-describedby={describedBy('pg-message', null, errors.message)}
                    />
                  </Field>
                </>
              )}
              <SchemaFields schema={schema} names={mainNames} values={values} onChange={(n, v) => setValues((x) => ({ ...x, [n]: v }))} errors={errors} idPrefix="pg" />
              {imageInput !== 'none' && <ImageInput value={image} onChange={setImage} required={imageInput === 'required'} error={errors.image} />}
              <details className="advanced">
                <summary>Advanced</summary>
                <SchemaFields schema={schema} names={advancedNames} values={values} onChange={(n, v) => setValues((x) => ({ ...x, [n]: v }))} errors={errors} idPrefix="pg" />
              </details>
              {simSchema && key.mode === 'test' && (
                <details className="advanced" open={Object.keys(sim).length > 0}>
                  <summary>Simulator</summary>
                  <p className="muted small">Test keys are served by the built-in simulator. Make it fail, lose the answer, or take its time.</p>
                  <SchemaFields schema={simSchema} names={simNames} values={sim} onChange={(n, v) => setSim((x) => ({ ...x, [n]: v }))} errors={errors} errorPrefix="simulate." idPrefix="pg-sim" />
                </details>
              )}
              <Estimate modality={info.id} model={model} body={body} />
              <div className="form-actions">
                <Button type="submit" variant="primary" busy={run.busy} perm={perm} disabled={!model}>
                  {run.busy ? (sync ? 'Generating…' : 'Running…') : 'Run'}
                </Button>
                {run.busy && !sync && g && (
                  <Button variant="ghost" onClick={() => follow.current?.abort()}>
                    Stop watching
                  </Button>
                )}
                <CopyButton text={curlFor('POST', path, body)} label="Copy as curl" size="md" />
              </div>
            </form>
          )}
        </Card>
        <Card title="Result" className="playground-result">
          <div aria-live="polite">
            {!g && !run.error && !run.busy && <p className="muted">Run a request to see its result here.</p>}
            {!g && run.busy && <Loading what={sync ? 'Generating' : 'Submitting'} />}
            {run.error ? <ErrorNotice error={run.error} title="The request failed" /> : null}
            {g && (
              <div data-testid="result" data-status={g.status}>
                {!sync || g.status !== 'succeeded' ? <GenerationProgress generation={g} seen={run.seen} /> : null}
                {g.status === 'succeeded' && <GenerationMedia generation={g} />}
                {g.error && <ErrorNotice error={new ApiError(0, g.error.code, g.error.message)} title={`Failed: ${g.error.code}`} />}
                <dl className="kv">
                  <dt>Generation</dt>
                  <dd>
                    <Link to={`/generations/${g.id}`}>{g.id}</Link>
                  </dd>
                  <dt>Cost</dt>
                  <dd>{costLabel(g)}</dd>
                  {g.usage && (
                    <>
                      <dt>Tokens</dt>
                      <dd>
                        {g.usage.input_tokens} in · {g.usage.output_tokens} out
                      </dd>
                    </>
                  )}
                </dl>
              </div>
            )}
          </div>
        </Card>
      </div>
    </>
  );
}
