import type { ReactNode } from 'react';

/**
 * "Everything" or "only these": a pair of radios over a grid of checkboxes
 * (a key's scopes, a webhook's events).
 */
export function SubsetField({
  legend,
  name,
  everything,
  onEverything,
  everythingLabel,
  everythingDisabled,
  onlyLabel,
  options,
  chosen,
  onChosen,
  error,
}: {
  legend: string;
  name: string;
  everything: boolean;
  onEverything: (all: boolean) => void;
  everythingLabel: ReactNode;
  everythingDisabled?: boolean;
  onlyLabel: string;
  options: readonly string[];
  chosen: readonly string[];
  onChosen: (chosen: string[]) => void;
  error?: string | undefined;
}) {
  return (
    <fieldset className={`field${error ? ' field-invalid' : ''}`}>
      <legend>{legend}</legend>
      <label className="check">
        <input type="radio" name={`${name}-mode`} checked={everything} disabled={everythingDisabled} onChange={() => onEverything(true)} /> {everythingLabel}
      </label>
      <label className="check">
        <input type="radio" name={`${name}-mode`} checked={!everything} onChange={() => onEverything(false)} /> {onlyLabel}
      </label>
      {!everything && (
        <div className="scope-grid">
          {options.map((o) => (
            <label key={o} className="check">
              <input
                type="checkbox"
                name={name}
                value={o}
                checked={chosen.includes(o)}
                onChange={(e) => onChosen(e.target.checked ? [...chosen, o] : chosen.filter((x) => x !== o))}
              />{' '}
              <code>{o}</code>
            </label>
          ))}
        </div>
      )}
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
    </fieldset>
  );
}
