import type { ChangeEvent } from 'react';
import { describeConstraints, type FieldErrors, type JsonSchema } from '../lib/schema.js';
import { humanize } from '../lib/format.js';
import { describedBy, Field } from './ui.js';

/** What the user typed, per field: text for inputs and selects, booleans for checkboxes. Absent: the API's default. */
export type RawValues = Record<string, string | boolean | undefined>;

const LONG_TEXT = new Set(['prompt', 'text', 'lyrics', 'negative_prompt']);

/** The fields of a request schema that a form shows, required ones first, in the schema's order. */
export function fieldNames(schema: JsonSchema, exclude: readonly string[]): string[] {
  const names = Object.keys(schema.properties ?? {}).filter((n) => !exclude.includes(n));
  const required = new Set(schema.required ?? []);
  return [...names.filter((n) => required.has(n)), ...names.filter((n) => !required.has(n))];
}

/** Typed request fields from what was typed: numbers become numbers, empty fields are left to the API's defaults. */
export function toBody(schema: JsonSchema, values: RawValues, names: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of names) {
    const s = schema.properties?.[name];
    const v = values[name];
    if (!s || v === undefined || v === '') continue;
    if (s.type === 'boolean') body[name] = v === true;
    else if ((s.type === 'integer' || s.type === 'number') && typeof v === 'string') {
      const n = Number(v.trim());
      // A value that is not a number is sent as typed, so the check says "must be integer" as the API would.
      body[name] = v.trim() !== '' && Number.isFinite(n) ? n : v;
    } else body[name] = v;
  }
  return body;
}

export function SchemaFields({
  schema,
  names,
  values,
  onChange,
  errors,
  idPrefix,
  errorPrefix = '',
  disabled,
}: {
  schema: JsonSchema;
  names: readonly string[];
  values: RawValues;
  onChange: (name: string, value: string | boolean) => void;
  errors: FieldErrors;
  idPrefix: string;
  /** How the API names these fields in errors (`params.` inside a comparison). */
  errorPrefix?: string;
  disabled?: boolean;
}) {
  return (
    <div className="fields">
      {names.map((name) => {
        const s = schema.properties?.[name];
        if (!s) return null;
        const id = `${idPrefix}-${name}`;
        const required = (schema.required ?? []).includes(name);
        const error = errors[errorPrefix + name];
        const hint = [s.description, describeConstraints(s)].filter(Boolean).join(' — ');
        const aria = { 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy(id, hint, error) } as const;
        const value = values[name];
        const onText = (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => onChange(name, e.target.value);

        if (s.type === 'boolean') {
          const checked = typeof value === 'boolean' ? value : s.default === true;
          return (
            <div key={name} className={`field field-check field-wide${error ? ' field-invalid' : ''}`}>
              <label htmlFor={id}>
                <input id={id} name={name} type="checkbox" checked={checked} onChange={(e) => onChange(name, e.target.checked)} disabled={disabled} {...aria} />
                {humanize(name)}
              </label>
              {s.description && (
                <div className="hint" id={`${id}-hint`}>
                  {s.description}
                </div>
              )}
              {error && (
                <div className="field-error" id={`${id}-error`} role="alert">
                  {error}
                </div>
              )}
            </div>
          );
        }
        let control;
        let wide = false;
        if (s.enum) {
          const current = typeof value === 'string' ? value : s.default !== undefined ? String(s.default) : '';
          control = (
            <select id={id} name={name} value={current} onChange={onText} disabled={disabled} required={required} {...aria}>
              {s.default === undefined && <option value="">—</option>}
              {s.enum.map((opt) => (
                <option key={String(opt)} value={String(opt)}>
                  {String(opt)}
                </option>
              ))}
            </select>
          );
        } else if (s.type === 'integer' || s.type === 'number') {
          control = (
            <input
              id={id}
              name={name}
              type="number"
              inputMode={s.type === 'integer' ? 'numeric' : 'decimal'}
              min={s.minimum}
              max={s.maximum}
              step={s.multipleOf ?? (s.type === 'integer' ? 1 : 'any')}
              placeholder={s.default !== undefined ? String(s.default) : ''}
              value={typeof value === 'string' ? value : ''}
              onChange={onText}
              disabled={disabled}
              required={required}
              {...aria}
            />
          );
        } else if (LONG_TEXT.has(name) || (s.maxLength ?? 0) > 4096) {
          wide = true;
          control = (
            <textarea id={id} name={name} rows={name === 'prompt' || name === 'text' ? 4 : 2} value={typeof value === 'string' ? value : ''} onChange={onText} disabled={disabled} required={required} {...aria} />
          );
        } else {
          wide = s.format === 'uri';
          control = (
            <input
              id={id}
              name={name}
              type={s.format === 'uri' ? 'url' : 'text'}
              value={typeof value === 'string' ? value : ''}
              onChange={onText}
              disabled={disabled}
              required={required}
              {...aria}
            />
          );
        }
        return (
          <Field key={name} id={id} label={humanize(name)} hint={hint || undefined} error={error} required={required} wide={wide}>
            {control}
          </Field>
        );
      })}
    </div>
  );
}
