import { useState, type FormEvent } from 'react';
import type { Organization } from '../api/types.js';
import { formatUsd } from '../lib/format.js';
import { useFormSubmit } from '../lib/actions.js';
import { useSession } from '../session.js';
import { BudgetFields } from './BudgetFields.js';
import { Badge, Button, Card, ErrorNotice } from './ui.js';

/** The organization's monthly budget (contract §7): its spend this month, and for owners the form that sets it. */
export function OrganizationBudget() {
  const { api, org, can, refreshOrg } = useSession();
  const perm = can('updateOrganization');
  const [budget, setBudget] = useState(org.monthly_budget_usd === null ? '' : String(org.monthly_budget_usd));
  const [action, setAction] = useState<'notify' | 'block'>(org.budget_action);
  const { errors, busy, error, submit } = useFormSubmit();

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const trimmed = budget.trim();
    const body = { monthly_budget_usd: trimmed === '' ? null : Number(trimmed), budget_action: action };
    await submit({}, async () => {
      await api.patch<Organization>('/v1/organization', body);
      await refreshOrg();
    });
  }

  return (
    <Card title="Organization budget">
      <p data-testid="org-spend">
        Spent this month (charged + held, live): <strong>{formatUsd(org.spent_usd)}</strong>
        {org.monthly_budget_usd === null ? (
          <span className="muted"> · no budget</span>
        ) : (
          <>
            {' '}of {formatUsd(org.monthly_budget_usd)} {org.budget_action === 'block' ? <Badge tone="red">blocks</Badge> : <Badge>notifies</Badge>}
          </>
        )}
      </p>
      {perm.ok ? (
        <form onSubmit={onSubmit} noValidate className="row">
          <BudgetFields
            id="org-budget"
            amount={budget}
            onAmount={setBudget}
            action={action}
            onAction={setAction}
            errors={errors}
            amountHint="Counts every key of the organization. Empty: no budget."
          />
          <div className="form-actions">
            <Button type="submit" variant="primary" busy={busy}>
              Save budget
            </Button>
          </div>
          {error ? <ErrorNotice error={error} title="The budget was not saved" /> : null}
        </form>
      ) : (
        <p className="muted small">Only owner keys can change the organization's budget.</p>
      )}
    </Card>
  );
}
