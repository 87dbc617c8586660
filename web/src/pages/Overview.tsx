import { useState } from 'react';
import { query } from '../api/client.js';
import type { Generation, List, Usage, Wallet } from '../api/types.js';
import { GenerationRow } from '../components/GenerationRow.js';
import { MetricToggle, UsageChart, type Metric } from '../components/UsageChart.js';
import { Card, Empty, ErrorNotice, Loading, Locked, PageHeader, Pending, Placeholder, Stat } from '../components/ui.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { creditsToUsd, formatCredits, formatInt, formatUsd } from '../lib/format.js';
import { Link } from '../lib/router.js';
import { useSession } from '../session.js';

/** The latest generations shown; `.gen-list-reserved` in styles.css holds the room of this many rows. */
const RECENT = 6;
const CHART_HEIGHT = 260;

function WalletCard() {
  const { api, can, key } = useSession();
  const perm = can('getWallet');
  const wallet = useResource((signal) => api.get<Wallet>('/v1/wallet', { signal }), [], { enabled: perm.ok });
  if (!perm.ok) {
    return (
      <Card title="Wallet">
        <Locked perm={perm} what="read the wallet" />
      </Card>
    );
  }
  return (
    <Card title="Wallet">
      {wallet.error ? <ErrorNotice error={wallet.error} /> : null}
      {wallet.data ? (
        <div className="stats" data-testid="wallet">
          <Stat label="Balance" value={creditsToUsd(wallet.data.balance_credits)} sub={formatCredits(wallet.data.balance_credits)} />
          <Stat label="Held" value={creditsToUsd(wallet.data.held_credits)} sub="reserved by running work" />
          <Stat label="Available" value={creditsToUsd(wallet.data.available_credits)} sub={formatCredits(wallet.data.available_credits)} />
        </div>
      ) : (
        // The same stats with their values to come: the wallet's answer then moves nothing below it.
        !wallet.error && (
          <div aria-busy="true">
            <Pending what="Loading the wallet" />
            <div className="stats">
              <Stat label="Balance" value={<Placeholder />} sub={<Placeholder width="7em" />} />
              <Stat label="Held" value={<Placeholder />} sub="reserved by running work" />
              <Stat label="Available" value={<Placeholder />} sub={<Placeholder width="7em" />} />
            </div>
          </div>
        )
      )}
      {key.mode === 'test' && <p className="muted small">Test keys read the same wallet and never move it.</p>}
    </Card>
  );
}

function MonthCard() {
  const { api, can, key } = useSession();
  const perm = can('getUsage');
  const [metric, setMetric] = useState<Metric>(key.mode === 'test' ? 'generations' : 'cost_usd');
  const usage = useResource((signal) => api.get<Usage>(`/v1/usage${query({ group_by: 'day', breakdown: 'modality' })}`, { signal }), [], { enabled: perm.ok });
  if (!perm.ok) {
    return (
      <Card title="This month">
        <Locked perm={perm} what="read usage" />
      </Card>
    );
  }
  const u = usage.data;
  return (
    <Card
      title="This month"
      actions={
        <MetricToggle value={metric} onChange={setMetric} />
      }
    >
      {usage.error ? <ErrorNotice error={usage.error} /> : null}
      {u ? (
        <>
          <div className="stats">
            <Stat label="Spend this month" value={formatUsd(u.totals.cost_usd)} sub={`${u.start} to ${u.end} (UTC)`} />
            <Stat label="Generations" value={formatInt(u.totals.generations)} sub={`${formatCredits(u.totals.refunded_credits)} refunded`} />
          </div>
          <h3 className="subhead">Daily usage by modality</h3>
          <UsageChart usage={u} metric={metric} height={CHART_HEIGHT} />
          <p className="small">
            <Link to="/usage">Usage details and CSV export →</Link>
          </p>
        </>
      ) : (
        // The card as it will be, its numbers and chart to come, so that their arrival moves nothing.
        !usage.error && (
          <div aria-busy="true">
            <Pending what="Loading usage" />
            <div className="stats">
              <Stat label="Spend this month" value={<Placeholder />} sub={<Placeholder width="12em" />} />
              <Stat label="Generations" value={<Placeholder />} sub={<Placeholder width="8em" />} />
            </div>
            <h3 className="subhead">Daily usage by modality</h3>
            <div className="chart chart-pending" style={{ height: CHART_HEIGHT }} />
            <p className="small">
              <Link to="/usage">Usage details and CSV export →</Link>
            </p>
          </div>
        )
      )}
    </Card>
  );
}

function RecentCard() {
  const { api, can } = useSession();
  const perm = can('listGenerations');
  const recent = useResource((signal) => api.get<List<Generation>>(`/v1/generations?limit=${RECENT}`, { signal }), [], { enabled: perm.ok });
  return (
    <Card title="Recent generations" actions={perm.ok ? <Link to="/generations">View all</Link> : undefined}>
      {!perm.ok ? (
        <Locked perm={perm} what="list generations" />
      ) : recent.error ? (
        <ErrorNotice error={recent.error} />
      ) : (
        // Room for all RECENT rows from the start, whatever comes: nothing below moves when the list arrives.
        <div className="gen-list-reserved">
          {!recent.data ? (
            <Loading what="Loading generations" />
          ) : recent.data.data.length === 0 ? (
            <Empty title="Nothing generated yet">
              Try a model in the <Link to="/playground">playground</Link>.
            </Empty>
          ) : (
            <ul className="gen-list" data-testid="recent-generations">
              {recent.data.data.map((g) => (
                <GenerationRow key={g.id} generation={g} />
              ))}
            </ul>
          )}
        </div>
      )}
    </Card>
  );
}

export function Overview() {
  useDocumentTitle('Overview');
  const { org } = useSession();
  return (
    <>
      <PageHeader title="Overview" description={`${org.name}: wallet, this month's usage and the latest generations.`} />
      <div className="grid grid-2">
        <WalletCard />
        <RecentCard />
      </div>
      <MonthCard />
    </>
  );
}
