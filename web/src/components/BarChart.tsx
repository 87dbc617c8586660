import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';

// Only the pieces a bar chart needs, so the bundle stays small.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

export interface Series {
  label: string;
  color: string;
  values: number[];
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/**
 * A (stacked) bar chart on Chart.js. The canvas is described for screen
 * readers by `summary`; every chart in the dashboard has its numbers in a
 * table next to it too.
 */
export function BarChart({
  labels,
  series,
  stacked = true,
  horizontal = false,
  format = (n) => String(n),
  summary,
  height = 260,
}: {
  labels: string[];
  series: Series[];
  stacked?: boolean;
  horizontal?: boolean;
  format?: (n: number) => string;
  summary: string;
  height?: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'bar'> | null>(null);
  const formatRef = useRef(format);
  formatRef.current = format;

  useEffect(() => {
    const text = cssVar('--text-muted', '#6b7280');
    const grid = cssVar('--border', '#e5e7eb');
    const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    const valueAxis = {
      stacked,
      beginAtZero: true,
      ticks: { color: text, callback: (v: string | number) => formatRef.current(Number(v)), maxTicksLimit: 6 },
      grid: { color: grid },
      border: { display: false },
    };
    const categoryAxis = { stacked, ticks: { color: text, autoSkip: true, maxRotation: 0 }, grid: { display: false } };
    chart.current = new Chart(canvas.current!, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        responsive: true,
        maintainAspectRatio: false,
        animation: reduceMotion ? false : { duration: 250 },
        scales: horizontal ? { x: valueAxis, y: categoryAxis } : { x: categoryAxis, y: valueAxis },
        plugins: {
          legend: { display: true, position: 'bottom', labels: { color: text, boxWidth: 12, boxHeight: 12 } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label ?? ''}: ${formatRef.current(Number(ctx.raw))}` } },
        },
      },
    });
    return () => {
      chart.current?.destroy();
      chart.current = null;
      shown.current = '';
    };
  }, [stacked, horizontal]);

  // Re-renders with equal data must not restart the animation.
  const shown = useRef('');
  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    const fingerprint = JSON.stringify([labels, series]);
    if (fingerprint === shown.current && c.data.datasets.length > 0) return;
    shown.current = fingerprint;
    c.data.labels = labels;
    c.data.datasets = series.map((s) => ({ label: s.label, data: s.values, backgroundColor: s.color, borderRadius: 3, maxBarThickness: 36 }));
    c.options.plugins!.legend!.display = series.length > 1;
    c.update();
  }, [labels, series]);

  return (
    <div className="chart" style={{ height }}>
      <canvas ref={canvas} role="img" aria-label={summary} />
    </div>
  );
}
