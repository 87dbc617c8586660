import type { Queryable } from './db.js';

/**
 * Node liveness (migration 0013): every process beats; one whose beat is
 * older than the bound, or that has no row, is dead. The bound is passed in
 * seconds by src/node-liveness.ts, which owns it.
 */

/** SQL true when the node named by `nodeExpr` beat within `$boundParam` seconds. */
export function nodeAliveSql(nodeExpr: string, boundParam: string): string {
  return `EXISTS (SELECT 1 FROM node_heartbeats h WHERE h.node_id = ${nodeExpr} AND h.beat_at > now() - make_interval(secs => ${boundParam}))`;
}

export async function beatNode(q: Queryable, nodeId: string): Promise<void> {
  await q.query(
    `INSERT INTO node_heartbeats (node_id) VALUES ($1)
     ON CONFLICT (node_id) DO UPDATE SET beat_at = now()`,
    [nodeId],
  );
}

/** A node stopping cleanly removes its row; rows of nodes long dead are swept with it. */
export async function forgetNode(q: Queryable, nodeId: string): Promise<void> {
  await q.query(`DELETE FROM node_heartbeats WHERE node_id = $1 OR beat_at < now() - interval '1 day'`, [nodeId]);
}

/**
 * Hands back, due at once, the jobs leased by dead nodes: a synchronous
 * generation whose API node died mid-run is taken up by a worker without
 * waiting out its lease. Returns how many were handed back.
 */
export async function releaseDeadNodesLeases(q: Queryable, deadAfterSeconds: number): Promise<number> {
  const r = await q.query(
    `UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, run_at = now()
     WHERE lease_owner IS NOT NULL AND lease_expires_at > now() AND NOT ${nodeAliveSql('jobs.lease_owner', '$1')}`,
    [deadAfterSeconds],
  );
  return r.rowCount;
}
