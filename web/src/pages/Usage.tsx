import { useCallback, useMemo, useState } from 'react';
import { query } from '../api/client.js';
import type { ApiKey, List, Usage as UsageData, UsageGroup, UsageLine } from '../api/types.js';
import { MetricToggle, UsageChart, type Metric } from '../components/UsageChart.js';
import { OrganizationBudget } from '../components/OrganizationBudget.js';
import { Button, Card, Empty, ErrorNotice, Loading, Locked, PageHeader, Stat } from '../components/ui.js';
import { toCsv } from '../lib/csv.js';
import { addDays, dayLabel, monthStart, utcDay } from '../lib/dates.js';
import { formatCredits, formatInt, formatUsd } from '../lib/format.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { modalityInfo } from '../lib/modalities.js';
import { setSearch, useLocation } from '../lib/router.js';
import { useSession } from '../session.js';

const GROUPS: { id: UsageGroup; label: string }[] = [
  { id: 'day', label: 'Day' },
  { id: 'model', label: 'Model' },
  { id: 'api_key', label: 'API key' },
  { id: 'modality', label: 'Modality' },
  // The version of the prices each generation was charged at (GET /v1/models pricing.version): a price change splits the rows.
  { id: 'price_version', label: 'Price version' },
];

function presets(today: string): { label: string; start: string; end: string }[] {
  return [
    { label: 'This month', start: monthStart(today), end: today },
    { label: 'Last 7 days', start: addDays(today, -6), end: today },
    { label: 'Last 30 days', start: addDays(today, -29), end: today },
    { label: 'Last 90 days', start: addDays(today, -89), end: today },
  ];
}

function download(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function Usage() {
  useDocumentTitle('Usage');
  const { api, can, key } = useSession();
  const { search } = useLocation();
  const today = utcDay();
  const start = search.get('start') ?? monthStart(today);
  const end = search.get('end') ?? today;
  const group = (GROUPS.find((g) => g.id === search.get('group_by'))?.id ?? 'day') as UsageGroup;
  const [metric, setMetric] = useState<Metric>(key.mode === 'test' ? 'generations' : 'cost_usd');
  const perm = can('getUsage');
  // By day the chart is stacked by modality; other groupings are one bar each.
  const breakdown = group === 'day' ? 'modality' : undefined;
  const usage = useResource(
    (signal) => api.get<UsageData>(`/v1/usage${query({ group_by: group, breakdown, start, end })}`, { signal }),
    [group, start, end],
    { enabled: perm.ok },
  );
  // Key ids become names when this key may list keys.
  const keysPerm = can('listApiKeys');
  const keys = useResource((signal) => api.get<List<ApiKey>>('/v1/api-keys?limit=100', { signal }), [], { enabled: keysPerm.ok && group === 'api_key' });
  const labelOf = useCallback(
    (k: string): string => {
      if (group === 'api_key') {
        const found = keys.data?.data.find((x) => x.id === k);
        return found ? `${found.name} (${k})` : k;
      }
      if (group === 'modality') return modalityInfo(k).label;
      if (group === 'day') return dayLabel(k);
      return k;
    },
    [group, keys.data],
  );

  const u = usage.data;
  const rows = useMemo(() => (u ? [...u.data].sort((a, b) => (group === 'day' ? b.key.localeCompare(a.key) : b.charged_credits - a.charged_credits || b.generations - a.generations)) : []), [u, group]);

  function exportCsv() {
    if (!u) return;
    const header = [group, ...(group === 'api_key' ? ['api_key_name'] : []), 'generations', 'charged_credits', 'refunded_credits', 'cost_usd'];
    const line = (l: UsageLine) => [
      l.key,
      ...(group === 'api_key' ? [keys.data?.data.find((x) => x.id === l.key)?.name ?? ''] : []),
      l.generations,
      l.charged_credits,
      l.refunded_credits,
      l.cost_usd,
    ];
    download(`mmgen-usage-${key.mode}-by-${group}-${u.start}-to-${u.end}.csv`, toCsv([header, ...u.data.map(line)]));
  }

  const invalidRange = start > end;
  return (
    <>
      <PageHeader
        title="Usage"
        description={`What this organization's ${key.mode} keys generated and spent, by UTC day. It agrees with the wallet's ledger.`}
        actions={
          <Button onClick={exportCsv} disabled={!u || u.data.length === 0}>
            Export CSV
          </Button>
        }
      />
      {key.mode === 'live' && <OrganizationBudget />}
      {!perm.ok ? (
        <Locked perm={perm} what="read usage" />
      ) : (
        <>
          <div className="toolbar" role="group" aria-label="Usage range and grouping">
            <label>
              From{' '}
              <input type="date" value={start} max={end} onChange={(e) => e.target.value && setSearch({ start: e.target.value })} aria-label="Start date (UTC)" />
            </label>
            <label>
              to{' '}
              <input type="date" value={end} min={start} max={today} onChange={(e) => e.target.value && setSearch({ end: e.target.value })} aria-label="End date (UTC)" />
            </label>
            <div className="segmented segmented-wrap" role="group" aria-label="Range presets">
              {presets(today).map((p) => (
                <button key={p.label} type="button" aria-pressed={p.start === start && p.end === end} onClick={() => setSearch({ start: p.start, end: p.end })}>
                  {p.label}
                </button>
              ))}
            </div>
          </div>
          <div className="toolbar">
            <div className="segmented" role="group" aria-label="Group by">
              {GROUPS.map((g) => (
                <button key={g.id} type="button" aria-pressed={group === g.id} onClick={() => setSearch({ group_by: g.id === 'day' ? null : g.id })}>
                  By {g.id === 'api_key' ? 'API key' : g.label.toLowerCase()}
                </button>
              ))}
            </div>
            <MetricToggle value={metric} onChange={setMetric} />
          </div>
          {invalidRange && <p className="notice notice-warn">The start date is after the end date.</p>}
          {usage.error ? <ErrorNotice error={usage.error} /> : null}
          {!u ? (
            !usage.error && <Loading what="Loading usage" />
          ) : (
            <>
              <div className="stats stats-cards">
                <Stat label="Spend" value={formatUsd(u.totals.cost_usd)} sub={`${u.start} to ${u.end}`} />
                <Stat label="Generations" value={formatInt(u.totals.generations)} />
                <Stat label="Charged" value={formatCredits(u.totals.charged_credits)} />
                <Stat label="Refunded" value={formatCredits(u.totals.refunded_credits)} />
              </div>
              <Card title={`${metric === 'cost_usd' ? 'Spend' : 'Generations'} by ${group === 'api_key' ? 'API key' : GROUPS.find((g) => g.id === group)!.label.toLowerCase()}`}>
                {u.data.length === 0 ? <Empty title="No usage in this range" /> : <UsageChart usage={u} metric={metric} labelOf={labelOf} height={group === 'day' ? 280 : Math.max(160, u.data.length * 34 + 60)} />}
              </Card>
              {u.data.length > 0 && (
                <div className="table-wrap">
                  <table className="table" data-testid="usage-table">
                    <caption className="visually-hidden">
                      Usage by {group} from {u.start} to {u.end}
                    </caption>
                    <thead>
                      <tr>
                        <th scope="col">{GROUPS.find((g) => g.id === group)!.label}</th>
                        <th scope="col" className="num">
                          Generations
                        </th>
                        <th scope="col" className="num">
                          Charged credits
                        </th>
                        <th scope="col" className="num">
                          Refunded credits
                        </th>
                        <th scope="col" className="num">
                          Cost
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((l) => (
                        <tr key={l.key}>
                          <th scope="row" className={group === 'model' || group === 'api_key' ? 'mono' : ''}>
                            {group === 'day' ? l.key : labelOf(l.key)}
                          </th>
                          <td className="num">{formatInt(l.generations)}</td>
                          <td className="num">{formatInt(l.charged_credits)}</td>
                          <td className="num">{formatInt(l.refunded_credits)}</td>
                          <td className="num">{formatUsd(l.cost_usd)}</td>
                        </tr>
                      ))}
                    </tbody>
                    <tfoot>
                      <tr>
                        <th scope="row">Total</th>
                        <td className="num">{formatInt(u.totals.generations)}</td>
                        <td className="num">{formatInt(u.totals.charged_credits)}</td>
                        <td className="num">{formatInt(u.totals.refunded_credits)}</td>
                        <td className="num">{formatUsd(u.totals.cost_usd)}</td>
                      </tr>
                    </tfoot>
                  </table>
                </div>
              )}
            </>
          )}
        </>
      )}
    </>
  );
}
