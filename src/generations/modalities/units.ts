import { Decimal } from 'decimal.js';
import type { ProducedWork } from './declaration.js';

/** The length of the primary (non-thumbnail) output that has one. */
export function producedSeconds(produced: ProducedWork): Decimal | undefined {
  const primary = produced.outputs.find((o) => o.type !== 'thumbnail' && o.duration_s);
  return primary?.duration_s ? new Decimal(primary.duration_s) : undefined;
}
