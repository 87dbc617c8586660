import type { Model } from '../api/types.js';
import { creditsToUsd, formatCredits } from '../lib/format.js';

type Tier = Model['pricing']['tiers'][number];

/** What selects a tier, in the request's own fields as the server publishes them: "width 1536, height 1024". */
export function tierCondition(t: Tier): string {
  const parts = Object.entries(t.when).map(([field, value]) => `${field} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  if (t.input_image) parts.push(`input image ${t.input_image.width}×${t.input_image.height}`);
  if (t.output_megapixels_at_most !== undefined) parts.push(`output ≤ ${t.output_megapixels_at_most} MP`);
  if (t.input_tokens_over !== undefined) parts.push(`prompt over ${t.input_tokens_over.toLocaleString('en-US')} tokens`);
  return parts.length > 0 ? parts.join(', ') : 'Default';
}

/**
 * A model's published prices (GET /v1/models `pricing.tiers`): what each request reserves on this installation, as
 * the server priced it. Shown as sent, never recomputed: the credits are the server's number for the tier's example.
 */
export function PriceTiers({ model, compact = false }: { model: Model; compact?: boolean }) {
  const { tiers, estimate, source, unit_description } = model.pricing;
  return (
    <div className="price-tiers" data-testid="price-tiers" data-model={model.slug}>
      <ul className="plain small">
        {tiers.map((t, i) => (
          <li key={i} data-testid="price-tier" data-credits={t.credits} data-when={JSON.stringify(t.when)}>
            <span className={i === 0 ? 'strong' : undefined}>{tierCondition(t)}</span>: {formatCredits(t.credits)} ({creditsToUsd(t.credits)})
            {t.per_output ? ' per output' : ''}
            {t.per_megapixel ? ', by megapixel' : ''}
          </li>
        ))}
      </ul>
      {!compact && (
        <p className="muted small">
          {unit_description}{' '}
          {source ? (
            <a href={source} rel="noreferrer noopener" target="_blank">
              Source
            </a>
          ) : estimate ? (
            'Estimated price.'
          ) : null}
        </p>
      )}
    </div>
  );
}
