import { PageHeader } from '../components/ui.js';
import { useDocumentTitle } from '../lib/hooks.js';
import { Link } from '../lib/router.js';

export function NotFound() {
  useDocumentTitle('Not found');
  return (
    <>
      <PageHeader title="Page not found" description="There is no dashboard page at this address." />
      <p>
        <Link to="/">Go to the overview</Link>
      </p>
    </>
  );
}
