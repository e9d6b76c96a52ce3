// The journey store's own loop. It migrates the schema (retried with backoff until PostgreSQL
// answers), then checks the store every few seconds, summarises and analyses today's partition
// every minute, and maintains its partitions every hour (today's and tomorrow's made ahead,
// expired ones dropped). A store that is down at start or
// goes away later is reported down (Health, /readyz) and taken up again when it is back: no
// restart by hand. Several replicas share one store: migrations and partition changes run under
// advisory locks.
import type pg from 'pg';
import { Histogram, type Registry } from 'prom-client';
import { backoffMs, sleep } from '../../backoff.js';
import type { Health, PartStatus } from '../../runtime/health.js';
import type { Part } from '../../runtime/parts.js';
import { errorMessage, type Logger } from '../../log.js';
import type { Database } from '../../db/checkout.js';
import { migrateStore } from './migrate.js';
import { openPools, type PoolOptions, type StorePools } from './pools.js';
import { StepReads } from './step-reads.js';
import { ReplicaReads } from './replica.js';
import { StepStore } from './step-store.js';
import { QueueReadings } from './queue-readings.js';
import type { ResultWords } from '../model/index.js';
import { histogram } from '../../metrics/catalogue.js';

export const PART = 'journey_store';
const CHECK_EVERY_MS = 5_000;
const MAINTAIN_EVERY_MS = 3_600_000;
/**
 * How often the time index's new block ranges are summarised (migration 008) and today's
 * partition analysed when it has grown (partitions.ts).
 */
const SUMMARISE_EVERY_MS = 60_000;

export interface JourneyStoreOptions extends PoolOptions {
  /** A replica further behind than this is not read from. */
  maxReadLagSeconds: number;
  retentionDays: number;
  /** Steps queued or being written at once (StepStore). */
  maxPendingSteps: number;
  /** What the pipeline's result words mean (journeys.words.results). */
  results?: ResultWords;
}

export class JourneyStore implements Part {
  readonly name = PART;
  private readonly pool: pg.Pool;
  readonly steps: StepStore;
  /** The read paths (API, Celery workflows, queue heads): the replica when there is one. */
  readonly reads: ReplicaReads;
  readonly queries: StepReads;
  /** The broker's counters of the queues whose consumers record no settle (queue-readings.ts). */
  readonly readings: QueueReadings;
  /**
   * The store's database for the other tables it holds (dead-letter parking's): its writes, and
   * its reads on the primary (pools.ts). No pool leaves the store, only this door.
   */
  readonly database: { writes: Database; primaryReads: Database };
  private readonly primaryReads: pg.Pool;
  private readonly pools: StorePools;
  private migrated = false;
  private readonly stopping = new AbortController();
  private loop: Promise<void> = Promise.resolve();
  private readonly onReady: (() => void)[] = [];

  constructor(
    private readonly opts: JourneyStoreOptions,
    private readonly reports: Health,
    private readonly log: Logger,
    registry: Registry,
  ) {
    reports.register(PART);
    this.pools = openPools(opts, (err, what) => {
      reports.error(PART, err, what);
    });
    this.pool = this.pools.writes;
    this.primaryReads = this.pools.primaryReads;
    this.database = { writes: this.pool, primaryReads: this.primaryReads };
    const writes = new Histogram({
      ...histogram('acktrail_journey_store_write_duration_seconds'),
      registers: [registry],
    });
    for (const result of ['stored', 'failed']) writes.zero({ result });
    this.steps = new StepStore(
      this.pool,
      opts.maxPendingSteps,
      (err) => {
        if (err === null) this.markUp();
        else reports.down(PART, err, 'unavailable');
      },
      this.pools.maintenance ?? this.pool,
      opts.results,
      (seconds, committed) => {
        writes.observe({ result: committed ? 'stored' : 'failed' }, seconds);
      },
    );
    this.reads = new ReplicaReads(
      this.primaryReads,
      this.pools.replica,
      opts.maxReadLagSeconds,
      registry,
      log,
    );
    this.queries = new StepReads(this.reads);
    this.readings = new QueueReadings(this.pool, this.reads);
  }

  /** The schema is in place: writes and reads can be tried. */
  get ready(): boolean {
    return this.migrated;
  }

  /** Resolves once the schema is in place (it may take until PostgreSQL is there). */
  whenReady(): Promise<void> {
    return this.migrated
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.onReady.push(resolve);
        });
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    await this.pools.end();
  }

  health(): PartStatus {
    return this.reports.statusOf(PART);
  }

  private markUp(): void {
    if (this.migrated) this.reports.up(PART);
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    let failures = 0;
    let maintainedAt = 0;
    let summarisedAt = 0;
    while (!signal.aborted) {
      try {
        if (!this.migrated) {
          const applied = await migrateStore(this.opts.migrateUrl ?? this.opts.url);
          if (applied.length) this.log.info({ applied }, 'journey store migrated');
          this.migrated = true;
          for (const resolve of this.onReady.splice(0)) resolve();
        }
        if (Date.now() - maintainedAt >= MAINTAIN_EVERY_MS) {
          await this.maintain();
          maintainedAt = Date.now();
        } else {
          await this.pool.query('SELECT 1');
        }
        if (Date.now() - summarisedAt >= SUMMARISE_EVERY_MS) {
          await this.steps.partitions.summariseToday().catch((err: unknown) => {
            this.log.debug({ err: errorMessage(err) }, 'time index not summarised');
          });
          await this.steps.partitions.analyseToday().catch((err: unknown) => {
            this.log.debug({ err: errorMessage(err) }, "today's partition not analysed");
          });
          summarisedAt = Date.now();
        }
        await this.reads.check();
        failures = 0;
        this.markUp();
      } catch (err) {
        failures++;
        this.reports.down(PART, err, this.migrated ? 'unavailable' : 'cannot be migrated yet');
      }
      await sleep(failures ? backoffMs(failures) : CHECK_EVERY_MS, signal);
    }
  }

  private async maintain(): Promise<void> {
    await this.steps.partitions.prepareAhead();
    const dropped = await this.steps.partitions.dropExpired(this.opts.retentionDays);
    if (dropped.length) this.log.info({ dropped }, 'journey partitions past retention dropped');
    await this.readings.dropOlderThan(this.opts.retentionDays);
  }
}
