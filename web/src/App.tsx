import { useEffect, useRef } from 'react';
import { Layout } from './components/Layout.js';
import { ToastProvider } from './components/ui.js';
import { match, Redirect, useLocation } from './lib/router.js';
import { ApiKeys } from './pages/ApiKeys.js';
import { Compare } from './pages/Compare.js';
import { GenerationDetail } from './pages/GenerationDetail.js';
import { Generations } from './pages/Generations.js';
import { Models } from './pages/Models.js';
import { Moderation } from './pages/Moderation.js';
import { Billing } from './pages/Billing.js';
import { Audit } from './pages/Audit.js';
import { AcceptInvitation } from './pages/AcceptInvitation.js';
import { Members } from './pages/Members.js';
import { Account } from './pages/Account.js';
import { NotFound } from './pages/NotFound.js';
import { Operator } from './pages/Operator.js';
import { Overview } from './pages/Overview.js';
import { Playground } from './pages/Playground.js';
import { SignIn } from './pages/SignIn.js';
import { SignUp } from './pages/SignUp.js';
import { Usage } from './pages/Usage.js';
import { Requests } from './pages/Requests.js';
import { WebhookDetail } from './pages/WebhookDetail.js';
import { Webhooks } from './pages/Webhooks.js';
import { SessionProvider } from './session.js';

function Routes() {
  const { path } = useLocation();
  const first = useRef(true);
  // After a navigation, focus moves to the new page's heading (screen readers announce it; Tab continues from there).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    requestAnimationFrame(() => document.getElementById('page-title')?.focus());
    window.scrollTo(0, 0);
  }, [path]);

  let m: Record<string, string> | null;
  if (path === '/') return <Overview />;
  if (path === '/playground') return <Playground />;
  if (path === '/generations') return <Generations />;
  if ((m = match('/generations/:id', path))) return <GenerationDetail key={m.id} id={m.id!} />;
  if (path === '/compare') return <Compare />;
  if ((m = match('/compare/:id', path))) return <Compare key={m.id} id={m.id!} />;
  if (path === '/models') return <Models />;
  if (path === '/api-keys') return <ApiKeys />;
  if (path === '/webhooks') return <Webhooks />;
  if ((m = match('/webhooks/:id', path))) return <WebhookDetail key={m.id} id={m.id!} />;
  if (path === '/usage') return <Usage />;
  if (path === '/requests') return <Requests />;
  if (path === '/moderation') return <Moderation />;
  if (path === '/billing') return <Billing />;
  if (path === '/audit') return <Audit />;
  if (path === '/members') return <Members />;
  if (path === '/account') return <Account />;
  // Passkeys had a page of their own before the dashboard signed people in; old links land on the Account page.
  if (path === '/passkeys') return <Redirect to="/account" />;
  return <NotFound />;
}

export function App() {
  const { path } = useLocation();
  // The instance operator's pages sign in with the operator credential, not an organization's key.
  // An invitation's link works signed out: accepting it signs in, then the dashboard opens.
  if (path === '/accept-invitation') {
    return (
      <ToastProvider>
        <AcceptInvitation />
      </ToastProvider>
    );
  }
  if (path === '/sign-up') {
    return (
      <ToastProvider>
        <SignUp />
      </ToastProvider>
    );
  }
  if (path === '/operator') {
    return (
      <ToastProvider>
        <Operator />
      </ToastProvider>
    );
  }
  return (
    <ToastProvider>
      <SessionProvider signIn={(props) => <SignIn {...props} />}>
        <Layout>
          <Routes />
        </Layout>
      </SessionProvider>
    </ToastProvider>
  );
}
