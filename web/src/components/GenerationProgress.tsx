import type { Generation } from '../api/types.js';
import { TERMINAL } from '../api/types.js';
import { useNow } from '../lib/hooks.js';
import { formatDuration } from '../lib/format.js';
import { StatusBadge } from './ui.js';

const STEPS = ['queued', 'running', 'done'] as const;

/**
 * Where an asynchronous generation is: queued → running → a terminal state,
 * with the time spent so far. `seen` holds when each state was first observed.
 */
export function GenerationProgress({ generation: g, seen }: { generation: Generation; seen: Record<string, number> }) {
  const terminal = TERMINAL.includes(g.status);
  const now = useNow(250, !terminal);
  const start = new Date(g.created_at).getTime();
  const end = terminal ? (g.completed_at ? new Date(g.completed_at).getTime() : (seen[g.status] ?? now)) : now;
  const reached = (step: (typeof STEPS)[number]) =>
    step === 'queued' ? true : step === 'running' ? g.status !== 'queued' || terminal : terminal;
  return (
    <div className="progress" data-testid="progress" aria-live="polite">
      <div className="progress-head">
        <StatusBadge status={g.status} />
        <span className="muted" data-testid="elapsed">
          {formatDuration(Math.max(0, end - start))}
        </span>
      </div>
      <ol className="steps">
        {STEPS.map((step) => (
          <li key={step} className={reached(step) ? 'step-done' : ''}>
            {step === 'done' ? (terminal ? g.status : 'finished') : step}
            {step !== 'done' && seen[step] !== undefined && <span className="muted small"> · {formatDuration(seen[step]! - start)}</span>}
          </li>
        ))}
      </ol>
      {!terminal && (
        <div className="bar" role="progressbar" aria-label="Generation in progress" aria-valuetext={g.status}>
          <span />
        </div>
      )}
    </div>
  );
}
