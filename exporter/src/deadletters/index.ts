// Dead-letter parking as one part: the store, acktrail's broker connection, the replayer, the
// metrics, and the loop that refreshes the gauges and applies retention.
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import type { Health } from '../health.js';
import type { StepStore } from '../journeys/store/store.js';
import { errorMessage, type Logger } from '../log.js';
import { DeadLetterBroker } from './broker.js';
import { BulkReplays } from './jobs.js';
import { DeadLetterMetrics } from './metrics.js';
import { Replayer } from './replay.js';
import { DeadLetterStore } from './store.js';
import type { Topology } from './targets.js';

const GAUGES_EVERY_MS = 10_000;
const MAINTAIN_EVERY_MS = 3_600_000;

export class Parking {
  readonly store: DeadLetterStore;
  readonly broker: DeadLetterBroker;
  readonly replayer: Replayer;
  readonly jobs: BulkReplays;
  private readonly timers: NodeJS.Timeout[] = [];
  private maintainedAt = 0;

  constructor(
    config: ValidatedConfig,
    pool: pg.Pool,
    steps: StepStore,
    private readonly ready: () => boolean,
    topology: Topology | null,
    registry: Registry,
    health: Health,
    private readonly log: Logger,
  ) {
    const s = config.deadLetters;
    const key = config.deadLetterKey!;
    const metrics = new DeadLetterMetrics(registry);
    this.store = new DeadLetterStore(pool, s.retentionDays);
    const discover = (vhost: string) => topology?.deadLetterQueues(vhost) ?? [];
    this.broker = new DeadLetterBroker(s, key, this.store, metrics, discover, health, log);
    const keys = [key, ...config.deadLetterOldKeys];
    this.replayer = new Replayer(this.store, this.broker, keys, steps, metrics, s, topology, log);
    this.jobs = new BulkReplays(pool, this.replayer, this.store, s.replay, log);
    const refresh = async () => {
      if (!this.ready()) return;
      try {
        metrics.setParked(await this.store.parkedNow());
        if (Date.now() - this.maintainedAt >= MAINTAIN_EVERY_MS) {
          const done = await this.store.maintain(s.replay.keepContentHours);
          this.maintainedAt = Date.now();
          if (done.expired || done.interrupted || done.erased)
            this.log.info(done, 'dead-letter store maintained');
        }
      } catch (err) {
        this.log.warn({ err: errorMessage(err) }, 'dead-letter gauges not refreshed');
      }
    };
    const timer = setInterval(() => void refresh(), GAUGES_EVERY_MS);
    timer.unref();
    this.timers.push(timer);
  }

  /** Starts consuming once the store's schema is in place. */
  start(whenReady: Promise<void>): void {
    void whenReady.then(() => {
      this.broker.start();
    });
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.broker.close();
  }
}
