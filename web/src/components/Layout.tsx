import { useEffect, useState, type ReactNode } from 'react';
import { useAction } from '../lib/actions.js';
import { Link, useLocation } from '../lib/router.js';
import { useSession } from '../session.js';
import { Badge, Button, ErrorNotice, LockIcon } from './ui.js';

interface NavItem {
  to: string;
  label: string;
  /** The operation the page needs to show its content; without it the page explains why. */
  needs?: string;
  icon: string;
}

// 16×16 outline icons (paths only, drawn with currentColor).
const NAV: NavItem[] = [
  { to: '/', label: 'Overview', icon: 'M2 9l6-6 6 6M4 7.5V14h8V7.5' },
  { to: '/playground', label: 'Playground', icon: 'M5 3l8 5-8 5z' },
  { to: '/generations', label: 'Generations', needs: 'listGenerations', icon: 'M2 2h5v5H2zM9 2h5v5H9zM2 9h5v5H2zM9 9h5v5H9z' },
  { to: '/compare', label: 'Compare', needs: 'createComparison', icon: 'M2 3h5v10H2zM9 3h5v10H9z' },
  { to: '/models', label: 'Models', needs: 'listModels', icon: 'M8 1.5l6 3.2v6.6L8 14.5l-6-3.2V4.7zM2 4.7l6 3.3 6-3.3M8 8v6.5' },
  { to: '/api-keys', label: 'API keys', needs: 'listApiKeys', icon: 'M10 2.5a3.5 3.5 0 1 1-2.9 5.5L2 13v1.5h2.5V13H6v-1.5h1.5L9 10' },
  { to: '/webhooks', label: 'Webhooks', needs: 'listWebhooks', icon: 'M5 12a3 3 0 1 1 1-5.8L8.5 2M11 12H6m5 0a3 3 0 1 0-2.2-5' },
  { to: '/usage', label: 'Usage', needs: 'getUsage', icon: 'M2 14h12M4 11V8M7 11V4M10 11V6M13 11V2' },
  { to: '/billing', label: 'Billing', needs: 'getBilling', icon: 'M1.5 4h13v8h-13zM1.5 6.5h13M4 10h3' },
  { to: '/requests', label: 'Requests', needs: 'listRequests', icon: 'M2 3h12M2 6.5h12M2 10h12M2 13.5h8' },
  { to: '/moderation', label: 'Moderation', needs: 'getModerationPolicy', icon: 'M8 1.5l5.5 2v4c0 3.5-2.4 6-5.5 7-3.1-1-5.5-3.5-5.5-7v-4z' },
  { to: '/members', label: 'Members', needs: 'listMembers', icon: 'M6 7a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5zM1.5 14c0-2.5 2-4.5 4.5-4.5s4.5 2 4.5 4.5M11 7.5a2 2 0 1 0 0-4M12 9.7c1.5.5 2.5 2 2.5 3.8' },
  { to: '/account', label: 'Account', needs: 'listSessions', icon: 'M8 8a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM2.5 14.5c0-3 2.5-5 5.5-5s5.5 2 5.5 5' },
  { to: '/audit', label: 'Audit log', needs: 'listAuditEvents', icon: 'M4 1.5h6l3 3v10H4zM10 1.5v3h3M6 7.5h5M6 10h5M6 12.5h3' },
];

function Icon({ d }: { d: string }) {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" className="nav-icon">
      <path d={d} fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" strokeLinecap="round" />
    </svg>
  );
}

function isActive(item: NavItem, path: string): boolean {
  return item.to === '/' ? path === '/' : path === item.to || path.startsWith(`${item.to}/`);
}

const usd = (n: number | undefined) => (n === undefined ? '?' : n.toFixed(2));

/** Why this tab now shows another session than it did: the browser signed in or switched in another tab. */
function SessionNotice() {
  const { notice, dismissNotice } = useSession();
  if (!notice) return null;
  return (
    <div className="banner banner-info" role="status" data-testid="session-notice">
      <div>{notice}</div>
      <Button size="sm" onClick={dismissNotice}>
        Dismiss
      </Button>
    </div>
  );
}

function PausedBanner() {
  const { org, can, refreshOrg, api } = useSession();
  const { busy, error, run } = useAction();
  if (!org.paused) return null;
  const reason = org.pause_reason;
  const since = org.paused_at ? ` since ${new Date(org.paused_at).toLocaleString()}` : '';
  return (
    <div className="banner banner-danger" role="alert" data-testid="paused-banner">
      <div data-testid="pause-reason">
        <strong>Your organization is paused{since}.</strong>{' '}
        {reason?.kind === 'anomaly' ? (
          <>
            The spending anomaly detector saw ${usd(reason.spent_usd)} of spend in {reason.window_minutes ?? '?'} minutes, where a usual window
            costs ${usd(reason.baseline_usd)}.
          </>
        ) : (
          <>An owner paused it.</>
        )}{' '}
        No credit-consuming request is accepted and queued generations wait; running ones finish. Review recent usage; an owner can lift the pause,
        and the queued generations then start.
      </div>
      <Button
        variant="danger"
        size="sm"
        busy={busy !== null}
        perm={can('updateOrganization')}
        onClick={() =>
          run('unpause', async () => {
            await api.patch('/v1/organization', { paused: false });
            await refreshOrg();
          })
        }
      >
        Unpause
      </Button>
      {error ? <ErrorNotice error={error} title="Could not unpause" /> : null}
    </div>
  );
}

/** Who the dashboard acts as: the key, or the signed-in person with their organization and mode switchers. */
function CallerInfo() {
  const { key, person, org, signOut, switchTo } = useSession();
  const { busy, error, run } = useAction();
  return (
    <>
      <div className="key-info" data-testid="caller">
        <Badge tone={key.mode === 'live' ? 'green' : 'orange'}>{key.mode}</Badge> <span title={key.id}>{key.name}</span>
        <div className="muted small">
          {key.role}
          {person ? ' · signed in' : key.scopes.length ? ` · ${key.scopes.length} scope${key.scopes.length > 1 ? 's' : ''}` : ' · all scopes'}
        </div>
      </div>
      {person && person.memberships.length > 1 && (
        <div className="switch-org">
          <label htmlFor="switch-org" className="small">
            Organization
          </label>
          <select id="switch-org" value={org.id} disabled={busy !== null} onChange={(e) => void run('org', () => switchTo({ organization_id: e.target.value }))}>
            {person.memberships.map((m) => (
              <option key={m.organization_id} value={m.organization_id}>
                {m.organization_name} ({m.role})
              </option>
            ))}
          </select>
        </div>
      )}
      {person && (
        <Button size="sm" variant="ghost" busy={busy === 'mode'} onClick={() => void run('mode', () => switchTo({ mode: key.mode === 'live' ? 'test' : 'live' }))}>
          Switch to {key.mode === 'live' ? 'test' : 'live'} mode
        </Button>
      )}
      {error ? <ErrorNotice error={error} title="Could not switch" /> : null}
      <Button size="sm" variant="ghost" onClick={() => signOut()}>
        Sign out
      </Button>
    </>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const { key, org, can } = useSession();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => setMenuOpen(false), [path]);
  // On a phone the menu is a panel over the page: Escape closes it and gives focus back to its button.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setMenuOpen(false);
      document.querySelector<HTMLButtonElement>('.menu-button')?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          <img src="/dashboard/favicon.svg" alt="" width="24" height="24" />
          mmgen
        </Link>
        {key.mode === 'test' && <Badge tone="orange">Test mode</Badge>}
        <button type="button" className="btn btn-ghost btn-sm menu-button" aria-expanded={menuOpen} aria-controls="sidebar" onClick={() => setMenuOpen((o) => !o)}>
          Menu
        </button>
      </header>
      <nav id="sidebar" className={`sidebar${menuOpen ? ' open' : ''}`} aria-label="Dashboard">
        <Link to="/" className="brand brand-side">
          <img src="/dashboard/favicon.svg" alt="" width="24" height="24" />
          mmgen
        </Link>
        <ul>
          {NAV.map((item) => {
            const locked = item.needs ? !can(item.needs).ok : false;
            return (
              <li key={item.to}>
                <Link to={item.to} className={`nav-link${isActive(item, path) ? ' active' : ''}`} aria-current={isActive(item, path) ? 'page' : undefined}>
                  <Icon d={item.icon} />
                  <span>{item.label}</span>
                  {locked && (
                    <span className="nav-lock" title="Not available to you here">
                      <LockIcon />
                      <span className="visually-hidden">(not available to this key)</span>
                    </span>
                  )}
                </Link>
              </li>
            );
          })}
        </ul>
        <div className="sidebar-footer">
          <div className="org-name" title={org.id}>
            {org.name}
          </div>
          <div className="muted small">
            {org.plan} plan{org.enterprise ? ' · Enterprise' : ''}
          </div>
          <CallerInfo />
        </div>
      </nav>
      <div className="content">
        {key.mode === 'test' && (
          <div className="banner banner-test" data-testid="test-banner">
            <strong>Test mode.</strong> This key runs generations on the built-in simulator: synthetic outputs, no charges. Test and live data never mix.
          </div>
        )}
        <SessionNotice />
        <PausedBanner />
        {/* Keyed by where the session acts: a switch of organization or mode loads the page afresh, with nothing of
            the old organization's or mode's data left on it (the sidebar, and the switcher's focus, stay). */}
        <main id="main" tabIndex={-1} key={`${org.id}:${key.mode}:${key.id}`}>
          {children}
        </main>
      </div>
    </div>
  );
}
