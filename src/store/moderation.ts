import type { Queryable } from './db.js';

/** An organization's moderation policy as stored (validated by src/moderation/policy.ts before it is written). */
export interface StoredModerationPolicy {
  action: 'flag' | 'block';
  threshold: number;
  prompt_blocklist: string[];
}

export async function selectModerationPolicy(q: Queryable, organizationId: string): Promise<StoredModerationPolicy | null> {
  const r = await q.query<{ moderation_policy: StoredModerationPolicy }>('SELECT moderation_policy FROM organizations WHERE id = $1', [organizationId]);
  return r.rows[0]?.moderation_policy ?? null;
}

export async function updateModerationPolicy(q: Queryable, organizationId: string, policy: StoredModerationPolicy): Promise<void> {
  await q.query('UPDATE organizations SET moderation_policy = $2 WHERE id = $1', [organizationId, JSON.stringify(policy)]);
}
