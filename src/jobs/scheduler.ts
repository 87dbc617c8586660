import type { Config } from '../config.js';
import { sweepAutoTopups, type StripePorts } from '../billing/stripe.js';
import { checkBudgets, detectAnomalies, type SpendingPorts } from '../domain/spending.js';

export interface SchedulerPorts extends SpendingPorts, StripePorts {
  config: Pick<Config, 'anomaly' | 'schedulerIntervalMs' | 'stripe' | 'publicUrl'>;
}

/** Periodic checks that belong to no request: budgets, spending anomalies, and automatic top-ups (after the anomaly check, which may pause). */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly deps: SchedulerPorts) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = null));
    }, this.deps.config.schedulerIntervalMs);
    this.timer.unref();
  }

  async tick(): Promise<void> {
    try {
      await checkBudgets(this.deps);
      await detectAnomalies(this.deps);
    } catch (err) {
      this.deps.log.error({ err }, 'scheduled spending checks failed');
    }
    await sweepAutoTopups(this.deps).catch((err: unknown) => this.deps.log.error({ err }, 'automatic top-ups failed'));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
