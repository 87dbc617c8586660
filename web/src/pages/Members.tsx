import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.js';
import type { CreatedInvitation, Invitation, Member } from '../api/people.js';
import { ROLES, type List, type Role } from '../api/types.js';
import { ActionsTable, Badge, Button, ConfirmDialog, CopyButton, Dialog, Empty, ErrorNotice, FormDialogActions, Loaded, PageHeader, useToast } from '../components/ui.js';
import { useAction, useFormSubmit } from '../lib/actions.js';
import { formatShort, formatUsd, relativeTime } from '../lib/format.js';
import { checkFields } from '../lib/schema.js';
import { BudgetFields } from '../components/BudgetFields.js';
import { useDocumentTitle, useResource } from '../lib/hooks.js';
import { useSession } from '../session.js';
import { SsoSettingsSection } from './SsoSettings.js';

/** The roles the caller may grant or manage: up to its own (the server refuses more, 403 insufficient_role). */
function rolesUpTo(role: Role): Role[] {
  return ROLES.filter((r) => ROLES.indexOf(r) <= ROLES.indexOf(role));
}

function MemberRow({ m, onChanged, onRemove, onBudget }: { m: Member; onChanged: (m: Member) => void; onRemove: () => void; onBudget: () => void }) {
  const { api, can, key: me, person } = useSession();
  const toast = useToast();
  const { busy, error, run } = useAction();
  const manageable = ROLES.indexOf(m.role) <= ROLES.indexOf(me.role);
  const update = can('updateMember');
  const label = m.name ?? m.email ?? m.id;
  return (
    <tr data-member-id={m.id} data-email={m.email ?? ''}>
      <td>
        <span className="strong">{m.name ?? m.email ?? 'Owner (link not yet accepted)'}</span> {person?.member_id === m.id && <Badge tone="blue">you</Badge>}
        {m.name && m.email && <div className="muted small">{m.email}</div>}
      </td>
      <td>
        {update.ok && manageable ? (
          <>
            <label className="visually-hidden" htmlFor={`role-${m.id}`}>
              Role of {label}
            </label>
            <select
              id={`role-${m.id}`}
              value={m.role}
              disabled={busy !== null}
              onChange={(e) =>
                void run('role', async () => {
                  const changed = await api.patch<Member>(`/v1/members/${m.id}`, { role: e.target.value });
                  onChanged(changed);
                  toast(`${label} is now ${changed.role}.`);
                })
              }
            >
              {rolesUpTo(me.role).map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </>
        ) : (
          m.role
        )}
        {error ? <ErrorNotice error={error} title="The role was not changed" /> : null}
      </td>
      <td data-testid="member-spend">
        {/* The server's month spend of all of the member's keys (charged + held, live); never summed here. */}
        {formatUsd(m.spent_usd)}
        {m.monthly_budget_usd === null ? (
          <span className="muted"> / no budget</span>
        ) : (
          <>
            {' '}/ {formatUsd(m.monthly_budget_usd)} {m.budget_action === 'block' ? <Badge tone="red">blocks</Badge> : <Badge>notifies</Badge>}
          </>
        )}
      </td>
      <td className="nowrap">{m.last_signed_in_at ? relativeTime(m.last_signed_in_at) : <span className="muted">never</span>}</td>
      <td className="nowrap">{formatShort(m.created_at)}</td>
      <td className="actions">
        {/* Offered only where it can be used, as the role select is (a row of locked buttons and their hints would not fit). */}
        {update.ok && manageable && (
          <Button size="sm" onClick={onBudget} aria-label={`Budget of ${label}`}>
            Budget
          </Button>
        )}
        <Button size="sm" variant="danger" perm={manageable ? can('removeMember') : { ok: false, reason: `Needs a role of at least ${m.role}.` }} onClick={onRemove} aria-label={`Remove ${label}`}>
          Remove
        </Button>
      </td>
    </tr>
  );
}

/** A member's monthly budget over all of their keys (their dashboard session's generations included), and its action. */
function BudgetDialog({ target, onClose, onSaved }: { target: Member; onClose: () => void; onSaved: (m: Member) => void }) {
  const { api, spec } = useSession();
  const [budget, setBudget] = useState(target.monthly_budget_usd === null ? '' : String(target.monthly_budget_usd));
  const [action, setAction] = useState<'notify' | 'block'>(target.budget_action === 'block' ? 'block' : 'notify');
  const { errors, busy, error, submit } = useFormSubmit();
  const label = target.name ?? target.email ?? target.id;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const trimmed = budget.trim();
    const body = { monthly_budget_usd: trimmed === '' ? null : Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed, budget_action: action };
    await submit(checkFields(spec.op('updateMember')?.requestSchema, body), async () => {
      onSaved(await api.patch<Member>(`/v1/members/${target.id}`, body));
    });
  }

  return (
    <Dialog open title={`Monthly budget of ${label}`} onClose={onClose}>
      <form onSubmit={onSubmit} noValidate>
        <p data-testid="member-budget-spend">
          Spent this month by all of their keys and their dashboard sessions (charged + held, live): <strong>{formatUsd(target.spent_usd)}</strong>
        </p>
        <BudgetFields
          id="member-budget"
          amount={budget}
          onAmount={setBudget}
          action={action}
          onAction={setAction}
          errors={errors}
          amountHint="Sends usage.budget_threshold events at 50, 80 and 100 %. Empty: no budget."
          autoFocus
        />
        <FormDialogActions error={error} failed="The budget was not saved" submit="Save budget" busy={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function RemoveDialog({ target, onClose, onRemoved }: { target: Member; onClose: () => void; onRemoved: (revokedKeys: number) => void }) {
  const { api } = useSession();
  return (
    <ConfirmDialog
      title={`Remove ${target.name ?? target.email ?? target.id}?`}
      action="Remove member"
      failed="The member was not removed"
      onClose={onClose}
      onConfirm={async () => {
        const r = await api.del<{ revoked_keys: number }>(`/v1/members/${target.id}`);
        onRemoved(r.revoked_keys);
      }}
    >
      <p>
        Their API keys answer <code>401</code> and their sessions in this organization end from their next request, on every server. Their generations, usage
        and ledger entries stay.
      </p>
    </ConfirmDialog>
  );
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const { api, key: me } = useSession();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const { busy, error, run } = useAction();
  const roles = rolesUpTo(me.role);

  function submit(e: FormEvent) {
    e.preventDefault();
    void run('invite', async () => {
      if (!email.includes('@')) throw new ApiError(0, 'parameter_invalid', 'Enter the email address to invite.', 'email');
      setCreated(await api.post<CreatedInvitation>('/v1/invitations', { email: email.trim(), role }));
      setEmail('');
      onInvited();
    });
  }

  return (
    <form className="card invite-form" onSubmit={submit} aria-labelledby="invite-title" noValidate>
      <h2 id="invite-title">Invite a person</h2>
      <div className="fields">
        <div className="field">
          <label htmlFor="invite-email">Email</label>
          <input id="invite-email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={roles.includes(role) ? role : roles[0]} onChange={(e) => setRole(e.target.value as Role)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div>
        <Button type="submit" variant="primary" busy={busy !== null} disabled={email.trim() === ''}>
          Send invitation
        </Button>
      </div>
      {error ? <ErrorNotice error={error} title="No invitation was made" /> : null}
      {created && (
        <div className="notice" role="status" data-testid="invitation-created">
          <p>
            Invited <strong>{created.email}</strong> as {created.role}.{' '}
            {created.mail === 'sent'
              ? 'The invitation was mailed.'
              : created.mail === 'failed'
                ? 'Mailing it failed (see the server log): send them the link yourself.'
                : 'No mail server is configured: send them the link yourself.'}{' '}
            The link works once, until {formatShort(created.expires_at)}, and is shown only now.
          </p>
          <div className="secret-row">
            <label className="visually-hidden" htmlFor="invite-link">
              Invitation link
            </label>
            <input id="invite-link" className="mono" readOnly value={created.url} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={created.url} size="md" label="Copy link" />
          </div>
        </div>
      )}
    </form>
  );
}

function Invitations({ reloadKey }: { reloadKey: number }) {
  const { api, can } = useSession();
  const toast = useToast();
  const perm = can('listInvitations');
  const list = useResource((signal) => api.get<List<Invitation>>('/v1/invitations', { signal }), [reloadKey], { enabled: perm.ok });
  const { busy, error, run } = useAction<string>();
  if (!perm.ok) return null;
  return (
    <section aria-labelledby="invitations-title">
      <h2 id="invitations-title">Pending invitations</h2>
      <Loaded perm={perm} what="list invitations" resource={list} loading="Loading invitations">
        {(pending) =>
          pending.data.length === 0 ? (
            <Empty title="No pending invitations" />
          ) : (
            <ActionsTable testId="invitations-table" columns={['Email', 'Role', 'Expires']}>
              {pending.data.map((i) => (
                <tr key={i.id} data-invitation-id={i.id}>
                  <td>{i.email ?? <span className="muted">owner link (printed at first start)</span>}</td>
                  <td>{i.role}</td>
                  <td className="nowrap">{formatShort(i.expires_at)}</td>
                  <td className="actions">
                    <Button
                      size="sm"
                      variant="danger"
                      perm={can('revokeInvitation')}
                      busy={busy === i.id}
                      aria-label={`Revoke the invitation of ${i.email ?? 'the owner link'}`}
                      onClick={() =>
                        void run(i.id, async () => {
                          await api.del(`/v1/invitations/${i.id}`);
                          toast(`Revoked the invitation of ${i.email ?? 'the owner link'}.`);
                          await list.reload();
                        })
                      }
                    >
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </ActionsTable>
          )
        }
      </Loaded>
      {error ? <ErrorNotice error={error} title="The invitation was not revoked" /> : null}
    </section>
  );
}

/** Members and their roles, invitations, and the organization's single sign-on: each shown as far as the caller's role allows. */
export function Members() {
  useDocumentTitle('Members');
  const { api, can } = useSession();
  const toast = useToast();
  const perm = can('listMembers');
  const members = useResource((signal) => api.get<List<Member>>('/v1/members', { signal }), [], { enabled: perm.ok });
  const [removing, setRemoving] = useState<Member | null>(null);
  const [budgeting, setBudgeting] = useState<Member | null>(null);
  const [invited, setInvited] = useState(0);

  return (
    <>
      <PageHeader
        title="Members"
        description="The people of this organization, their roles and monthly budgets. A member's keys never act above the member's role, and their budget counts all of their keys."
      />
      <div className="people-stack">
        <Loaded perm={perm} what="list members" resource={members} loading="Loading members">
          {(all) => (
            <ActionsTable testId="members-table" columns={['Member', 'Role', 'Spent / budget this month', 'Last sign-in', 'Joined']}>
              {all.data.map((m) => (
                <MemberRow
                  key={m.id}
                  m={m}
                  onChanged={(changed) => members.set({ ...all, data: all.data.map((x) => (x.id === changed.id ? changed : x)) })}
                  onRemove={() => setRemoving(m)}
                  onBudget={() => setBudgeting(m)}
                />
              ))}
            </ActionsTable>
          )}
        </Loaded>
        {can('createInvitation').ok && <InviteForm onInvited={() => setInvited((n) => n + 1)} />}
        <Invitations reloadKey={invited} />
        <SsoSettingsSection />
      </div>
      {budgeting && (
        <BudgetDialog
          target={budgeting}
          onClose={() => setBudgeting(null)}
          onSaved={(changed) => {
            toast(`Saved the monthly budget of ${changed.name ?? changed.email ?? changed.id}.`);
            setBudgeting(null);
            void members.reload();
          }}
        />
      )}
      {removing && (
        <RemoveDialog
          target={removing}
          onClose={() => setRemoving(null)}
          onRemoved={(revoked) => {
            toast(`Removed ${removing.name ?? removing.email ?? removing.id}; ${revoked} key${revoked === 1 ? '' : 's'} revoked.`);
            setRemoving(null);
            void members.reload();
          }}
        />
      )}
    </>
  );
}
