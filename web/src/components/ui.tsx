import { createContext, useCallback, useContext, useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { ApiError } from '../api/client.js';
import { Link } from '../lib/router.js';
import type { Permission } from '../api/spec.js';
import type { Resource } from '../lib/hooks.js';
import { useAction } from '../lib/actions.js';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: Variant;
  size?: 'sm' | 'md';
  busy?: boolean;
  /** When the key may not do this, the button is disabled and says why (never hidden). */
  perm?: Permission;
};

export function Button({ variant = 'secondary', size = 'md', busy, perm, disabled, className, children, type, ...rest }: ButtonProps) {
  const hintId = useId();
  const denied = perm && !perm.ok;
  const button = (
    <button
      {...rest}
      type={type ?? 'button'}
      className={`btn btn-${variant} btn-${size}${className ? ` ${className}` : ''}`}
      disabled={disabled || busy || denied}
      aria-busy={busy || undefined}
      aria-describedby={denied ? hintId : rest['aria-describedby']}
      title={denied ? perm.reason : rest.title}
    >
      {busy ? <Spinner small /> : null}
      {children}
    </button>
  );
  if (!denied) return button;
  return (
    <span className="guarded">
      {button}
      <span className="perm-hint" id={hintId}>
        <LockIcon /> {perm.reason}
      </span>
    </span>
  );
}

export function LockIcon() {
  return (
    <svg className="icon-inline" viewBox="0 0 16 16" aria-hidden="true" width="12" height="12">
      <path fill="currentColor" d="M8 1a3.5 3.5 0 0 0-3.5 3.5V6H4a1 1 0 0 0-1 1v7a1 1 0 0 0 1 1h8a1 1 0 0 0 1-1V7a1 1 0 0 0-1-1h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 5H6V4.5a2 2 0 1 1 4 0V6Z" />
    </svg>
  );
}

export function Spinner({ small, label }: { small?: boolean; label?: string }) {
  return (
    <span className={`spinner${small ? ' spinner-sm' : ''}`} role={label ? 'status' : undefined} aria-label={label}>
      <span aria-hidden="true" />
    </span>
  );
}

/**
 * A value still on its way, holding the place it will take: a box of the surrounding text's line height, so that the
 * value's arrival moves nothing (layout shift). `Pending` says, to screen readers only, what is loading.
 */
export function Placeholder({ width = '5em' }: { width?: string }) {
  return (
    <span className="placeholder" style={{ width }} aria-hidden="true">
      {'\u00a0'}
    </span>
  );
}

export function Pending({ what }: { what: string }) {
  return (
    <span className="visually-hidden" role="status">
      {what}…
    </span>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <div className="loading" role="status">
      <Spinner /> {what}…
    </div>
  );
}

const STATUS_TONE: Record<string, string> = {
  succeeded: 'green',
  completed: 'green',
  active: 'green',
  enabled: 'green',
  running: 'blue',
  pending: 'blue',
  queued: 'gray',
  canceled: 'gray',
  disabled: 'gray',
  delisted: 'gray',
  failed: 'red',
  exhausted: 'red',
};

export function Badge({ tone = 'gray', children }: { tone?: string; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={STATUS_TONE[status] ?? 'gray'}>
      {(status === 'running' || status === 'pending') && <span className="pulse" aria-hidden="true" />}
      {status}
    </Badge>
  );
}

export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card${className ? ` ${className}` : ''}`}>
      {(title || actions) && (
        <header className="card-header">
          {title && <h2>{title}</h2>}
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export function Stat({ label, value, sub }: { label: string; value: ReactNode; sub?: ReactNode }) {
  return (
    <div className="stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {sub && <div className="stat-sub">{sub}</div>}
    </div>
  );
}

export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const e = error as Error;
  const api = error instanceof ApiError ? error : null;
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title ?? 'Something went wrong'}</strong>
      <p>{e.message}</p>
      {api && api.code && api.status > 0 && (
        <p className="muted small">
          <code>{api.status}</code> <code>{api.code}</code>
          {api.param && (
            <>
              {' '}
              on <code>{api.param}</code>
            </>
          )}
          {api.requestId && (
            <>
              {' '}
              · request{' '}
              <Link to={`/requests?request_id=${encodeURIComponent(api.requestId)}`}>
                <code>{api.requestId}</code>
              </Link>
            </>
          )}
        </p>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}

/** A section the key may not read: said plainly, with the reason, instead of an error. */
export function Locked({ perm, what }: { perm: Permission; what: string }) {
  return (
    <div className="notice notice-locked">
      <strong>
        <LockIcon /> This key cannot {what}.
      </strong>
      <p>{perm.reason}</p>
    </div>
  );
}

/**
 * What a section loaded with useResource shows before its data: locked when the caller may not read it, the error
 * that came instead, or a loading state; then `children` with the data.
 */
export function Loaded<T>({ perm, what, resource, loading, children }: { perm: Permission; what: string; resource: Resource<T>; loading: string; children: (data: T) => ReactNode }) {
  if (!perm.ok) return <Locked perm={perm} what={what} />;
  if (resource.error) return <ErrorNotice error={resource.error} />;
  if (resource.data === undefined) return <Loading what={loading} />;
  return <>{children(resource.data)}</>;
}

/** A table whose rows end in their actions (a last column whose header only screen readers hear). */
export function ActionsTable({ testId, columns, children }: { testId: string; columns: string[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid={testId}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API outside secure contexts: fall back to a selection copy.
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}

export function CopyButton({ text, label = 'Copy', size = 'sm' }: { text: string; label?: string; size?: 'sm' | 'md' }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <Button size={size} onClick={async () => setCopied(await copyText(text))} aria-label={copied ? 'Copied' : label}>
      {copied ? 'Copied' : label}
      <span className="visually-hidden" aria-live="polite">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </Button>
  );
}

/** A secret shown once, with a copy button and the warning that it will not be shown again. */
export function SecretReveal({ label, secret, what }: { label: string; secret: string; what: string }) {
  const id = useId();
  return (
    <div className="secret">
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input id={id} className="mono" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} data-testid="secret" />
        <CopyButton text={secret} size="md" />
      </div>
      <p className="notice notice-warn small">Copy it now and store it safely: mmgen keeps only a hash, so this {what} will never be shown again.</p>
    </div>
  );
}

/**
 * A modal on the native <dialog>: focus is trapped and returned, Escape
 * closes, the rest of the page is inert.
 */
/** A destructive action asked once more: Cancel, or the action (busy while it runs; its failure shown in the dialog). */
export function ConfirmDialog({
  title, action, failed, onClose, onConfirm, children,
}: {
  title: string;
  /** The confirming button's label ("Revoke key"). */
  action: string;
  /** The title of the error shown when the action fails. */
  failed: string;
  onClose: () => void;
  onConfirm: () => Promise<void>;
  children: ReactNode;
}) {
  const { busy, error, run } = useAction();
  return (
    <Dialog
      open
      title={title}
      onClose={onClose}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy !== null} onClick={() => void run('confirm', onConfirm)}>
            {action}
          </Button>
        </>
      }
    >
      {children}
      {error ? <ErrorNotice error={error} title={failed} /> : null}
    </Dialog>
  );
}

/**
 * The end of a form in a dialog: why the last submit failed (under `failed`), then the submit button and Cancel,
 * as every form dialog of the dashboard ends.
 */
export function FormDialogActions({ error, failed, submit, busy, onCancel }: { error: unknown; failed: string; submit: ReactNode; busy: boolean; onCancel: () => void }) {
  return (
    <>
      {error ? <ErrorNotice error={error} title={failed} /> : null}
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={busy}>
          {submit}
        </Button>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </>
  );
}

export function Dialog({ open, title, onClose, children, footer, wide }: { open: boolean; title: string; onClose: () => void; children: ReactNode; footer?: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`dialog${wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="btn btn-ghost btn-sm" onClick={onClose} aria-label="Close">
              ✕
            </button>
          </header>
          <div className="dialog-body">{children}</div>
          {footer && <footer className="dialog-footer">{footer}</footer>}
        </>
      )}
    </dialog>
  );
}

export function Field({
  label,
  hint,
  error,
  children,
  id,
  required,
  wide,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  children: ReactNode;
  id: string;
  required?: boolean;
  /** Inside a `.fields` grid: take a whole row. */
  wide?: boolean;
}) {
  return (
    <div className={`field${error ? ' field-invalid' : ''}${wide ? ' field-wide' : ''}`}>
      <label htmlFor={id}>
        {label}
        {required && (
          <span className="required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {children}
      {hint && (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={`${id}-error`} role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

/** aria-describedby for an input inside <Field>. */
export function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1 tabIndex={-1} id="page-title">
          {title}
        </h1>
        {description && <p className="page-description">{description}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

export function IdText({ id }: { id: string }) {
  return (
    <span className="id-text">
      <code>{id}</code>
      <CopyButton text={id} label="Copy id" />
    </span>
  );
}

interface Toast {
  id: number;
  text: string;
  tone: 'info' | 'error';
}
const ToastContext = createContext<(text: string, tone?: Toast['tone']) => void>(() => {});

export function useToast() {
  return useContext(ToastContext);
}

/** Short confirmations ("Replay queued"), announced to screen readers through a live region. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const push = useCallback((text: string, tone: Toast['tone'] = 'info') => {
    const id = next.current++;
    setToasts((t) => [...t, { id, text, tone }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 5000);
  }, []);
  return (
    <ToastContext.Provider value={push}>
      {children}
      <div className="toasts" aria-live="polite" role="status">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.tone}`}>
            {t.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
