import type { FieldErrors } from '../lib/schema.js';
import { Field, describedBy } from './ui.js';

export type BudgetAction = 'notify' | 'block';

/**
 * A monthly budget's two fields as the API takes them from keys, members and the organization alike
 * (`monthly_budget_usd` in whole cents, `budget_action` notify or block), with the server's refusal of each beside
 * it: one form for the three, so that they cannot drift apart. `amountHint` says what the budget counts.
 */
export function BudgetFields({
  id,
  amount,
  onAmount,
  action,
  onAction,
  errors,
  amountHint,
  autoFocus = false,
}: {
  id: string;
  amount: string;
  onAmount: (v: string) => void;
  action: BudgetAction;
  onAction: (a: BudgetAction) => void;
  errors: FieldErrors;
  amountHint: string;
  autoFocus?: boolean;
}) {
  const actionId = `${id}-action`;
  return (
    <>
      <Field id={id} label="Monthly budget (US$)" error={errors.monthly_budget_usd} hint={amountHint}>
        <input
          id={id}
          type="number"
          min={0}
          step={0.01}
          inputMode="decimal"
          value={amount}
          onChange={(e) => onAmount(e.target.value)}
          aria-invalid={errors.monthly_budget_usd ? true : undefined}
          aria-describedby={describedBy(id, true, errors.monthly_budget_usd)}
          autoFocus={autoFocus}
        />
      </Field>
      <Field id={actionId} label="When the budget is reached" error={errors.budget_action} hint="Block: a request that would pass the budget is refused (402 budget_exceeded), nothing reserved.">
        <select id={actionId} value={action} onChange={(e) => onAction(e.target.value === 'block' ? 'block' : 'notify')} aria-describedby={describedBy(actionId, true, errors.budget_action)}>
          <option value="notify">notify only</option>
          <option value="block">block</option>
        </select>
      </Field>
    </>
  );
}
