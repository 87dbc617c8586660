import { useEffect, useState, type FormEvent } from 'react';
import { Button, Card, ErrorNotice, Field, Loading, Locked, PageHeader, describedBy, useToast } from '../components/ui.js';
import { useFormSubmit } from '../lib/actions.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import type { FieldErrors } from '../lib/schema.js';
import { useSession } from '../session.js';

/** The organization's moderation policy (contract §11), as GET /v1/organization/moderation answers it. */
interface Policy {
  object: 'moderation_policy';
  action: 'flag' | 'block';
  threshold: number;
  prompt_blocklist: string[];
}

/** One entry per line, blank lines dropped: what the API's prompt_blocklist takes. */
export function blocklistFromText(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** The form's own checks, as the API would answer them (its limits: threshold 0–1, entries of 1–100 characters, at most 500). */
export function checkPolicy(form: { threshold: string; blocklist: string }): FieldErrors {
  const found: FieldErrors = {};
  const t = Number(form.threshold);
  if (form.threshold.trim() === '' || !Number.isFinite(t) || t < 0 || t > 1) found.threshold = 'must be a number from 0 to 1';
  const entries = blocklistFromText(form.blocklist);
  if (entries.length > 500) found.prompt_blocklist = 'must have at most 500 entries';
  else if (entries.some((e) => e.length > 100)) found.prompt_blocklist = 'each entry must be at most 100 characters';
  return found;
}

export function Moderation() {
  useDocumentTitle('Moderation');
  const { api, can } = useSession();
  const read = can('getModerationPolicy');
  const write = can('updateModerationPolicy');
  const toast = useToast();
  const policy = useResource((signal) => api.get<Policy>('/v1/organization/moderation', { signal }), [], { enabled: read.ok });
  const [form, setForm] = useState({ action: 'block' as Policy['action'], threshold: '0.8', blocklist: '' });
  const { errors, busy, error, submit } = useFormSubmit((param) => param.split('[')[0]!);

  useEffect(() => {
    if (policy.data) setForm({ action: policy.data.action, threshold: String(policy.data.threshold), blocklist: policy.data.prompt_blocklist.join('\n') });
  }, [policy.data]);

  async function save(e: FormEvent) {
    e.preventDefault();
    const body = { action: form.action, threshold: Number(form.threshold), prompt_blocklist: blocklistFromText(form.blocklist) };
    await submit(checkPolicy(form), async () => {
      policy.set(await api.patch<Policy>('/v1/organization/moderation', body));
      toast('Moderation policy saved.');
    });
  }

  return (
    <>
      <PageHeader
        title="Moderation"
        description="Every output is judged before it is served: a score at or above the threshold is flagged (served, marked) or blocked (never served, not charged). Prompts on the blocklist are refused before anything is reserved."
      />
      {!read.ok ? (
        <Locked perm={read} what="read the moderation policy" />
      ) : policy.error ? (
        <ErrorNotice error={policy.error} />
      ) : !policy.data ? (
        <Loading what="Loading the moderation policy" />
      ) : (
        <Card title="Policy">
          <form onSubmit={save} noValidate aria-label="Moderation policy">
            <Field id="mod-action" label="When an output scores at or above the threshold" error={errors.action}>
              <select
                id="mod-action"
                name="action"
                value={form.action}
                disabled={!write.ok}
                onChange={(e) => setForm((f) => ({ ...f, action: e.target.value as Policy['action'] }))}
              >
                <option value="block">Block it: never served, not charged</option>
                <option value="flag">Flag it: served, marked</option>
              </select>
            </Field>
            <Field id="mod-threshold" label="Threshold" hint="The classifier score, from 0 to 1. Lower is stricter." error={errors.threshold}>
              <input
                id="mod-threshold"
                name="threshold"
                type="number"
                min={0}
                max={1}
                step={0.01}
                value={form.threshold}
                disabled={!write.ok}
                onChange={(e) => setForm((f) => ({ ...f, threshold: e.target.value }))}
                aria-invalid={errors.threshold ? true : undefined}
                aria-describedby={describedBy('mod-threshold', true, errors.threshold)}
              />
            </Field>
            <Field id="mod-blocklist" label="Prompt blocklist" hint="One word or phrase per line; matched as whole words, in any case." error={errors.prompt_blocklist}>
              <textarea
                id="mod-blocklist"
                name="prompt_blocklist"
                rows={6}
                value={form.blocklist}
                disabled={!write.ok}
                onChange={(e) => setForm((f) => ({ ...f, blocklist: e.target.value }))}
                aria-invalid={errors.prompt_blocklist ? true : undefined}
                aria-describedby={describedBy('mod-blocklist', true, errors.prompt_blocklist)}
              />
            </Field>
            {error ? <ErrorNotice error={error} /> : null}
            <div className="form-actions">
              <Button type="submit" variant="primary" busy={busy} perm={write}>
                Save the policy
              </Button>
            </div>
          </form>
        </Card>
      )}
    </>
  );
}
