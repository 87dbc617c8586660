import { useState, type FormEvent } from 'react';
import type { DataPolicy } from '../api/types.js';
import { useFormSubmit } from '../lib/actions.js';
import { useResource } from '../lib/hooks.js';
import { checkFields, describeConstraints, type JsonSchema } from '../lib/schema.js';
import { useSession } from '../session.js';
import { Button, Card, ErrorNotice, Field, Loading, describedBy } from './ui.js';

const KINDS = [
  { field: 'request_log_days', expiry: 'request_log', label: 'Request log (days)', hint: 'Rows of API calls.', nullable: false },
  { field: 'generation_days', expiry: 'generation_records', label: 'Generation prompts (days)', hint: "Empty: forever. Prompts, the request's text and chat answers.", nullable: true },
  { field: 'file_days', expiry: 'files', label: 'Files (days)', hint: 'Empty: forever. Output and input files, uploads; their URLs then answer 410.', nullable: true },
] as const;

/** A field's bounds in words, from the operation's own schema (the number member of a nullable field). */
function bounds(schema: JsonSchema | undefined, field: string): string {
  const prop = schema?.properties?.[field];
  const number = prop?.anyOf?.find((s) => s.type === 'integer' || s.type === 'number') ?? prop;
  return number ? describeConstraints(number) : '';
}

type PolicyField = (typeof KINDS)[number]['field'];

/**
 * How long the organization keeps what it sends (issue 33): the request log, generations' prompts and their files,
 * with the day what is made now expires; owners change the days. Usage and billing are kept whatever is chosen.
 */
export function RetentionSettings() {
  const { api, can, spec } = useSession();
  const perm = can('updateDataPolicy');
  const schema = spec.op('updateDataPolicy')?.requestSchema;
  const policy = useResource((signal) => api.get<DataPolicy>('/v1/organization/data-policy', { signal }), []);
  const [form, setForm] = useState<Partial<Record<PolicyField, string>>>({});
  const { errors, busy, error, submit } = useFormSubmit();

  if (policy.error) return <ErrorNotice error={policy.error} />;
  if (!policy.data) return <Loading what="Loading the data policy" />;
  const p = policy.data;
  const value = (f: PolicyField) => form[f] ?? (p[f] === null ? '' : String(p[f]));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const body: Record<string, number | null> = {};
    for (const k of KINDS) {
      const v = value(k.field).trim();
      body[k.field] = v === '' && k.nullable ? null : Number(v);
    }
    // The operation's schema judges the form first: a refusal lands on its field without a round trip.
    await submit(checkFields(schema, body), async () => {
      await api.patch<DataPolicy>('/v1/organization/data-policy', body);
      setForm({});
      await policy.reload();
    });
  }

  return (
    <Card title="Retention">
      <table className="table" data-testid="retention">
        <thead>
          <tr>
            <th scope="col">Kept</th>
            <th scope="col">Days</th>
            <th scope="col">Made today, removed on</th>
          </tr>
        </thead>
        <tbody>
          {KINDS.map((k) => (
            <tr key={k.field} data-kind={k.field}>
              <td>{k.label.replace(' (days)', '')}</td>
              <td>{p[k.field] ?? 'forever'}</td>
              <td>{p.expiry[k.expiry].written_today_expires_on ?? 'never'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">Usage, the wallet and the ledger are kept whatever is chosen.</p>
      {perm.ok ? (
        <form onSubmit={onSubmit} noValidate className="row" aria-label="Retention">
          {KINDS.map((k) => (
            <Field key={k.field} id={`ret-${k.field}`} label={k.label} error={errors[k.field]} hint={[bounds(schema, k.field), k.hint].filter(Boolean).join('. ')}>
              <input
                id={`ret-${k.field}`}
                type="number"
                min={1}
                step={1}
                inputMode="numeric"
                value={value(k.field)}
                onChange={(e) => setForm({ ...form, [k.field]: e.target.value })}
                aria-describedby={describedBy(`ret-${k.field}`, true, errors[k.field])}
              />
            </Field>
          ))}
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={busy}>
              Save retention
            </Button>
          </div>
          {error ? <ErrorNotice error={error} title="The retention was not saved" /> : null}
        </form>
      ) : (
        <p className="muted small">Only owners can change how long data is kept.</p>
      )}
    </Card>
  );
}
