import { selectDataPolicies, type DataPolicyRow } from '../store/data-policies.js';
import type { Queryable } from '../store/db.js';

/** How long a node trusts its copy of an organization's data policy (a change reaches every node within it). */
export const DATA_POLICY_TTL_MS = 5_000;

/**
 * Organizations' data policies (capture, redaction, retention) read through a short cache: the request log's
 * writer reads a batch's organizations in one statement, and capture asks once per organization per TTL.
 */
export class DataPolicyCache {
  private readonly entries = new Map<string, { policy: DataPolicyRow; at: number }>();

  constructor(private readonly db: Queryable) {}

  /** The cached policy when it is fresh, else undefined (the request path asks this, never waiting). */
  peek(organizationId: string): DataPolicyRow | undefined {
    const hit = this.entries.get(organizationId);
    return hit && Date.now() - hit.at < DATA_POLICY_TTL_MS ? hit.policy : undefined;
  }

  async get(organizationId: string): Promise<DataPolicyRow> {
    return (await this.getMany([organizationId])).get(organizationId)!;
  }

  async getMany(organizationIds: readonly string[]): Promise<Map<string, DataPolicyRow>> {
    const out = new Map<string, DataPolicyRow>();
    const missing: string[] = [];
    for (const id of new Set(organizationIds)) {
      const hit = this.peek(id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const now = Date.now();
      for (const [id, policy] of await selectDataPolicies(this.db, missing)) {
        this.entries.set(id, { policy, at: now });
        out.set(id, policy);
      }
      if (this.entries.size > 50_000) this.entries.clear();
    }
    return out;
  }

  /** This node changed it: the next read is fresh. */
  forget(organizationId: string): void {
    this.entries.delete(organizationId);
  }
}
