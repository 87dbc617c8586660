/**
 * Fairness between webhook receivers in one dispatcher.
 *
 * Every webhook is a lane with an allowance of attempts outstanding at once.
 * A lane starts at `initialCap` and earns one more with every fast attempt, up
 * to `normalCap` (a healthy receiver is at full speed after a few dozen
 * deliveries); a *slow* lane (one of its attempts is taking longer than
 * `slowMs`, or one did within the last `penaltyMs` and none has been fast
 * since) gets `slowCap`. A lane at its allowance is *blocked*: none of its
 * deliveries is claimed or started until it has room again, so a receiver that
 * hangs, with however large a backlog, holds a few sockets and never the
 * dispatcher. Together with the dispatcher giving back the concurrency slot of
 * any attempt that passes `slowMs`, no bad receiver delays deliveries to others.
 */
export interface LaneLimits {
  initialCap: number;
  normalCap: number;
  slowCap: number;
  slowMs: number;
  penaltyMs: number;
}

interface Lane {
  /** Start times (ms) of the attempts in flight. */
  starts: number[];
  /** Deliveries of this lane claimed and waiting in the dispatcher's queue. */
  queued: number;
  /** The allowance earned by fast attempts. */
  allowance: number;
  /** Slow until then, unless an attempt is fast first. */
  slowUntil: number;
}

export class ReceiverLanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly limits: LaneLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** What a lane this node has not seen yet may be given. */
  get initialCap(): number {
    return this.limits.initialCap;
  }

  private lane(webhookId: string): Lane {
    let l = this.lanes.get(webhookId);
    if (!l) {
      l = { starts: [], queued: 0, allowance: this.limits.initialCap, slowUntil: 0 };
      this.lanes.set(webhookId, l);
    }
    return l;
  }

  private forget(webhookId: string, l: Lane): void {
    if (l.starts.length === 0 && l.queued === 0 && l.slowUntil <= this.now()) this.lanes.delete(webhookId);
  }

  isSlow(webhookId: string): boolean {
    const l = this.lanes.get(webhookId);
    if (!l) return false;
    const now = this.now();
    return l.slowUntil > now || l.starts.some((t) => now - t >= this.limits.slowMs);
  }

  cap(webhookId: string): number {
    if (this.isSlow(webhookId)) return this.limits.slowCap;
    return this.lanes.get(webhookId)?.allowance ?? this.limits.initialCap;
  }

  /** Attempts in flight plus deliveries queued for this lane. */
  held(webhookId: string): number {
    const l = this.lanes.get(webhookId);
    return l ? l.starts.length + l.queued : 0;
  }

  /** Whether another attempt may start now. */
  mayStart(webhookId: string): boolean {
    return (this.lanes.get(webhookId)?.starts.length ?? 0) < this.cap(webhookId);
  }

  queued(webhookId: string, delta: number): void {
    const l = this.lane(webhookId);
    l.queued = Math.max(0, l.queued + delta);
    this.forget(webhookId, l);
  }

  begin(webhookId: string): number {
    const t = this.now();
    this.lane(webhookId).starts.push(t);
    return t;
  }

  end(webhookId: string, startedAt: number): void {
    const l = this.lane(webhookId);
    const i = l.starts.indexOf(startedAt);
    if (i >= 0) l.starts.splice(i, 1);
    const took = this.now() - startedAt;
    // A slow attempt (whatever its outcome) marks the lane and takes its allowance back to the start; a fast one clears the mark and earns one more.
    if (took >= this.limits.slowMs) {
      l.slowUntil = this.now() + this.limits.penaltyMs;
      l.allowance = this.limits.initialCap;
    } else {
      l.slowUntil = 0;
      l.allowance = Math.min(this.limits.normalCap, l.allowance + 1);
    }
    this.forget(webhookId, l);
  }

  /**
   * For the claim: lanes that must get nothing (`blocked`), and how many more
   * the others this node knows may get (`room`); a lane not listed is new and
   * may get `initialCap`.
   */
  claimLimits(): { blocked: string[]; roomIds: string[]; rooms: number[] } {
    const blocked: string[] = [];
    const roomIds: string[] = [];
    const rooms: number[] = [];
    for (const [id, l] of this.lanes) {
      // A healthy lane may hold a second round in the queue (claims stay batched); a slow one nothing beyond what may run.
      const room = (this.isSlow(id) ? this.cap(id) : 2 * this.cap(id)) - l.starts.length - l.queued;
      if (room <= 0) blocked.push(id);
      else {
        roomIds.push(id);
        rooms.push(room);
      }
    }
    return { blocked, roomIds, rooms };
  }
}
