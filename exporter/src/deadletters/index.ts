// Dead-letter parking as one part: the store, acktrail's broker connection, the replayer, the
// metrics, and the loop that refreshes the gauges and applies retention.
import type { Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import type { Health, PartStatus } from '../runtime/health.js';
import type { JourneyStore } from '../journeys/store/index.js';
import type { JourneyWriter } from '../journeys/writer.js';
import type { Part } from '../runtime/parts.js';
import { errorMessage, type Logger } from '../log.js';
import { DeadLetterBroker, PART } from './park/broker.js';
import { BulkReplays } from './replay/jobs.js';
import { DeadLetterMetrics, type ParkedOne } from './model/metrics.js';
import { Replayer } from './replay/replay.js';
import { DeadLetterStore } from './store/store.js';
import type { Topologies } from './replay/targets.js';
import type { MemoryBudget } from '../runtime/memory.js';

const GAUGES_EVERY_MS = 10_000;
const MAINTAIN_EVERY_MS = 3_600_000;

export class Parking implements Part {
  readonly name = PART;
  readonly store: DeadLetterStore;
  readonly broker: DeadLetterBroker;
  readonly replayer: Replayer;
  readonly jobs: BulkReplays;
  private readonly timers: NodeJS.Timeout[] = [];
  private maintainedAt = 0;
  private unwatch: () => void = () => undefined;
  private stopped = false;
  private readonly metrics: DeadLetterMetrics;
  private readonly keepContentHours: number;

  constructor(
    config: ValidatedConfig,
    private readonly journeys: JourneyStore,
    /** Where a replay's step is written. */
    writer: JourneyWriter,
    topology: Topologies | null,
    registry: Registry,
    private readonly reports: Health,
    private readonly log: Logger,
    /** Over it, parking takes no new deliveries. */
    private readonly memory: MemoryBudget | null = null,
  ) {
    const s = config.deadLetters;
    const key = config.deadLetterKey!;
    this.metrics = new DeadLetterMetrics(registry);
    this.store = new DeadLetterStore(
      journeys.database.writes,
      s.retentionDays,
      journeys.database.primaryReads,
    );
    const discover = (vhost: string) => topology?.current.deadLetterQueues(vhost) ?? [];
    this.broker = new DeadLetterBroker(s, key, this.store, this.metrics, discover, reports, log);
    const keys = [key, ...config.deadLetterOldKeys];
    this.replayer = new Replayer(
      this.store,
      this.broker,
      keys,
      writer,
      this.metrics,
      s,
      topology,
      log,
    );
    this.jobs = new BulkReplays(
      journeys.database.writes,
      this.replayer,
      this.store,
      s.replay,
      log,
      journeys.database.primaryReads,
    );
    this.keepContentHours = s.replay.keepContentHours;
  }

  /** Starts consuming once the store's schema is in place; refreshes the gauges meanwhile. */
  /** Hears every message parked for the first time (the journeys' inferred dead letters). */
  onParked(listener: (row: ParkedOne) => void): void {
    this.metrics.onParked(listener);
  }

  start(): void {
    if (this.memory) {
      this.broker.setPaused(this.memory.over);
      this.unwatch = this.memory.onChange((over) => {
        this.broker.setPaused(over);
      });
    }
    void this.journeys.whenReady().then(() => {
      if (!this.stopped) this.broker.start();
    });
    const timer = setInterval(() => void this.refresh(), GAUGES_EVERY_MS);
    timer.unref();
    this.timers.push(timer);
  }

  /** Stops parking, and the bulk replays this exporter runs after the message in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch();
    for (const t of this.timers) clearInterval(t);
    await this.jobs.stopAll();
    await this.broker.close();
  }

  health(): PartStatus {
    return this.reports.statusOf(PART);
  }

  /** The parked gauge, and the store's retention once an hour. */
  private async refresh(): Promise<void> {
    if (!this.journeys.ready) return;
    try {
      this.metrics.setParked(await this.store.parkedNow());
      if (Date.now() - this.maintainedAt >= MAINTAIN_EVERY_MS) {
        const done = await this.store.maintain(this.keepContentHours);
        this.maintainedAt = Date.now();
        if (done.expired || done.interrupted || done.erased)
          this.log.info(done, 'dead-letter store maintained');
      }
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'dead-letter gauges not refreshed');
    }
  }
}
