/** A free-credit reading older than this is not trusted for early dispatch. */
export const HEADROOM_TTL_MS = 60_000;
const MAX_ORGANIZATIONS = 10_000;

/** Each organization's free credits as this node last saw them (per process, never shared). */
export class Headroom {
  private readonly seen = new Map<string, { free: number; at: number }>();
  private readonly claimed = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** After a reservation: what the wallet had free once it was taken. */
  record(organizationId: string, free: number): void {
    this.seen.delete(organizationId);
    if (this.seen.size >= MAX_ORGANIZATIONS) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(organizationId, { free, at: this.now() });
  }

  /** After a refusal: nothing is dispatched early for it until a reservation succeeds again. */
  refused(organizationId: string): void {
    this.record(organizationId, 0);
  }

  /** Claims `factor` × `price` of the organization's headroom if it is recent and has that much unclaimed; the claim, or null. */
  claim(organizationId: string, price: number, factor: number): number | null {
    const s = this.seen.get(organizationId);
    const claim = price * factor;
    const claimed = this.claimed.get(organizationId) ?? 0;
    if (s === undefined || this.now() - s.at > HEADROOM_TTL_MS || s.free - claimed < claim) return null;
    this.claimed.set(organizationId, claimed + claim);
    return claim;
  }

  /** The early call's reservation committed, or it was aborted. */
  release(organizationId: string, claim: number): void {
    const left = (this.claimed.get(organizationId) ?? 0) - claim;
    if (left > 0) this.claimed.set(organizationId, left);
    else this.claimed.delete(organizationId);
  }
}
