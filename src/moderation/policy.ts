import { recordAudit, type AuditOrigin } from '../domain/audit.js';
import { inTransaction, type Queryable } from '../store/db.js';
import { selectModerationPolicy, updateModerationPolicy, type StoredModerationPolicy } from '../store/moderation.js';

/**
 * An organization's moderation policy (contract §11): an output scored at or
 * above `threshold` by a classifier is acted on (`flag`: served and marked;
 * `block`: never served, not charged), and a prompt matching
 * `prompt_blocklist` is refused before anything is reserved.
 */
export type ModerationPolicy = StoredModerationPolicy;

export const DEFAULT_POLICY: ModerationPolicy = { action: 'block', threshold: 0.8, prompt_blocklist: [] };
export const MAX_BLOCKLIST_ENTRIES = 500;
export const MAX_BLOCKLIST_ENTRY_LENGTH = 100;

export function policyView(p: ModerationPolicy): ModerationPolicy & { object: 'moderation_policy' } {
  return { object: 'moderation_policy', action: p.action, threshold: p.threshold, prompt_blocklist: [...p.prompt_blocklist] };
}

/** How long a node trusts a policy it read: a PATCH reaches every node's generations within this. */
export const POLICY_TTL_MS = 2_000;

/**
 * Policies read once per organization per POLICY_TTL_MS on this node: every
 * finished generation and every prompt consults one, and the row rarely
 * changes. The node that writes a policy forgets its own copy at once.
 */
export class PolicyCache {
  private readonly entries = new Map<string, { policy: ModerationPolicy; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(db: Queryable, organizationId: string): Promise<ModerationPolicy> {
    const hit = this.entries.get(organizationId);
    if (hit && this.now() - hit.at < POLICY_TTL_MS) return hit.policy;
    const policy = (await selectModerationPolicy(db, organizationId)) ?? DEFAULT_POLICY;
    this.entries.set(organizationId, { policy, at: this.now() });
    // Bounded: organizations not seen for a while are dropped first (Map keeps insertion order).
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
    return policy;
  }

  /** Writes the policy and its audit entry (`moderation_policy.updated`) in one transaction. */
  async update(db: Queryable, organizationId: string, patch: Partial<ModerationPolicy>, origin: AuditOrigin): Promise<ModerationPolicy> {
    const next = await inTransaction(db, (t) => this.write(t, organizationId, patch, origin));
    this.entries.delete(organizationId);
    return next;
  }

  private async write(db: Queryable, organizationId: string, patch: Partial<ModerationPolicy>, origin: AuditOrigin): Promise<ModerationPolicy> {
    const current = (await selectModerationPolicy(db, organizationId)) ?? DEFAULT_POLICY;
    const next: ModerationPolicy = {
      action: patch.action ?? current.action,
      threshold: patch.threshold ?? current.threshold,
      // Kept as written, without duplicates (compared case-insensitively, as matching is).
      prompt_blocklist: patch.prompt_blocklist
        ? [...new Map(patch.prompt_blocklist.map((w) => w.trim()).filter(Boolean).map((w) => [w.toLowerCase(), w])).values()]
        : current.prompt_blocklist,
    };
    await updateModerationPolicy(db, organizationId, next);
    await recordAudit(db, {
      ...origin, organizationId, action: 'moderation_policy.updated', target: { type: 'moderation_policy', id: organizationId }, before: current, after: next,
    });
    return next;
  }
}
