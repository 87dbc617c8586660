import type { Config } from '../config.js';
import { checkBudgets, detectAnomalies, type SpendingPorts } from '../domain/spending.js';

export interface SchedulerPorts extends SpendingPorts {
  config: Pick<Config, 'anomaly' | 'schedulerIntervalMs'>;
}

/** Periodic checks that belong to no request: budgets and spending anomalies. */
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
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
