import type { Generation } from '../api/types.js';
import { creditsToUsd, relativeTime } from '../lib/format.js';
import { modalityInfo } from '../lib/modalities.js';
import { Link } from '../lib/router.js';
import { Thumb } from './Media.js';
import { StatusBadge } from './ui.js';

/** What a generation cost so far: charged once settled, else what is held for it. */
export function costLabel(g: Generation): string {
  if (!g.livemode) return 'free (test)';
  if (g.cache_hit) return 'cache hit';
  if (g.status === 'succeeded' || g.status === 'failed' || g.status === 'canceled') return creditsToUsd(g.charged_credits);
  return `${creditsToUsd(g.reserved_credits)} held`;
}

export function GenerationRow({ generation: g }: { generation: Generation }) {
  return (
    <li className="gen-row">
      <Thumb generation={g} />
      <div className="gen-row-main">
        <Link to={`/generations/${g.id}`} className="gen-row-title">
          {g.prompt ? g.prompt : <span className="muted">{modalityInfo(g.modality).label} without a prompt</span>}
        </Link>
        <div className="muted small gen-row-meta">
          {modalityInfo(g.modality).label} · <span className="mono">{g.model}</span> · {relativeTime(g.created_at)}
        </div>
      </div>
      <div className="gen-row-side">
        <StatusBadge status={g.status} />
        <span className="muted small">{costLabel(g)}</span>
      </div>
    </li>
  );
}
