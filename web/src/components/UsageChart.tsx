import { useMemo } from 'react';
import type { Usage, UsageLine } from '../api/types.js';
import { dayLabel, daysBetween } from '../lib/dates.js';
import { formatInt, formatUsd } from '../lib/format.js';
import { MODALITY_INFO } from '../lib/modalities.js';
import { PALETTE, type PaletteColor } from '../lib/palette.js';
import { BarChart, type Series } from './BarChart.js';

export type Metric = 'cost_usd' | 'generations';


export function metricFormat(metric: Metric): (n: number) => string {
  return metric === 'cost_usd' ? (n) => formatUsd(n) : (n) => formatInt(n);
}

function colorOf(breakdown: string | undefined, key: string, index: number): PaletteColor {
  if (breakdown === 'modality') return MODALITY_INFO.find((m) => m.id === key)?.color ?? PALETTE[index % PALETTE.length]!;
  return PALETTE[index % PALETTE.length]!;
}

/**
 * A usage response as bars: by day on a continuous axis (days without usage
 * are zero), otherwise one bar per key; stacked by the breakdown when there is one.
 */
const same = (k: string) => k;

export function UsageChart({ usage, metric, labelOf = same, height }: { usage: Usage; metric: Metric; labelOf?: (key: string) => string; height?: number }) {
  const { labels, series } = useMemo(() => {
    const byDay = usage.group_by === 'day';
    const keys = byDay ? daysBetween(usage.start, usage.end) : usage.data.map((d) => d.key);
    const rows = new Map(usage.data.map((d) => [d.key, d]));
    const labels = keys.map((k) => (byDay ? dayLabel(k) : labelOf(k)));
    const value = (l: UsageLine | undefined) => (l ? l[metric] : 0);
    let series: Series[];
    if (usage.breakdown) {
      const parts = [...new Set(usage.data.flatMap((d) => (d.breakdown ?? []).map((b) => b.key)))].sort();
      series = parts.map((p, i) => ({
        label: usage.breakdown === 'modality' ? (MODALITY_INFO.find((m) => m.id === p)?.label ?? p) : labelOf(p),
        color: colorOf(usage.breakdown, p, i),
        values: keys.map((k) => value(rows.get(k)?.breakdown?.find((b) => b.key === p))),
      }));
    } else {
      series = [{ label: metric === 'cost_usd' ? 'Spend' : 'Generations', color: PALETTE[0]!, values: keys.map((k) => value(rows.get(k))) }];
    }
    return { labels, series };
  }, [usage, metric, labelOf]);

  const what = metric === 'cost_usd' ? 'spend' : 'generations';
  const summary = `Bar chart of ${what} by ${usage.group_by}${usage.breakdown ? ` and ${usage.breakdown}` : ''} from ${usage.start} to ${usage.end}; the same numbers are in the table.`;
  return <BarChart labels={labels} series={series} format={metricFormat(metric)} summary={summary} horizontal={usage.group_by !== 'day' && labels.length > 0} {...(height ? { height } : {})} />;
}

/** Spend or generations: what a usage chart measures. */
export function MetricToggle({ value, onChange }: { value: Metric; onChange: (m: Metric) => void }) {
  return (
    <div className="segmented" role="group" aria-label="Chart metric">
      <button type="button" aria-pressed={value === 'cost_usd'} onClick={() => onChange('cost_usd')}>
        Spend
      </button>
      <button type="button" aria-pressed={value === 'generations'} onClick={() => onChange('generations')}>
        Generations
      </button>
    </div>
  );
}
