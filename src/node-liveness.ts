import type { Logger } from 'pino';
import type { Db } from './store/db.js';
import { beatNode, forgetNode, releaseDeadNodesLeases } from './store/nodes.js';

/** How often every process says it is alive. */
export const NODE_BEAT_MS = 2_000;
/**
 * A node that has not beaten for this long is dead (docs/contract-addenda.md,
 * "Idempotency across crashes"): its Idempotency-Key claims stop answering 409
 * and the jobs it leased are handed back. Five missed beats, so a busy event
 * loop or a slow database moment is not taken for a death.
 */
export const NODE_DEAD_AFTER_S = 10;

/**
 * This process's heartbeat. Each beat also hands back the jobs of dead nodes,
 * so the synchronous generations of an API node killed mid-request are
 * finished by a worker within seconds of the node being declared dead.
 */
export class NodeLiveness {
  private timer: NodeJS.Timeout | null = null;
  /** When this node last failed to beat (the database was unreachable), or 0. */
  private lastFailureAt = 0;

  constructor(
    private readonly db: Db,
    private readonly nodeId: string,
    private readonly log: Logger,
  ) {}

  /** Resolves once the first beat is written: from then on the node's claims are held by a live node. */
  async start(): Promise<void> {
    if (this.timer) return;
    await this.beat();
    this.timer = setInterval(() => void this.beat(), NODE_BEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await forgetNode(this.db, this.nodeId).catch((err: unknown) => this.log.warn({ err }, 'could not remove this node\'s heartbeat'));
  }

  private async beat(): Promise<void> {
    try {
      await beatNode(this.db, this.nodeId);
      // After the database was out of reach, every node's beat is old until each has beaten again: judging them
      // dead then would take live nodes' work. Wait out one bound first.
      if (Date.now() - this.lastFailureAt < NODE_DEAD_AFTER_S * 1000) return;
      const handedBack = await releaseDeadNodesLeases(this.db, NODE_DEAD_AFTER_S);
      if (handedBack > 0) this.log.warn({ jobs: handedBack }, 'handed back the jobs of a node that stopped beating');
    } catch (err) {
      this.lastFailureAt = Date.now();
      this.log.warn({ err }, 'node heartbeat failed');
    }
  }
}
