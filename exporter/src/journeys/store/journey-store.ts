// The journey store's own loop. It migrates the schema (retried with backoff until PostgreSQL
// answers), then checks the store every few seconds and maintains its partitions every hour
// (today's and tomorrow's made ahead, expired ones dropped). A store that is down at start or
// goes away later is reported down (Health, /readyz) and taken up again when it is back: no
// restart by hand. Several replicas share one store: migrations and partition changes run under
// advisory locks.
import pg from 'pg';
import type { Registry } from 'prom-client';
import { backoffMs, sleep } from '../../backoff.js';
import type { Health, PartStatus } from '../../runtime/health.js';
import type { Part } from '../../runtime/parts.js';
import type { Logger } from '../../log.js';
import { SessionPool, type Pooler } from '../../db/session.js';
import { migrateStore } from './migrate.js';
import { StepQueries } from './queries.js';
import { StoreReads } from './reads.js';
import { StepStore } from './step-store.js';
import type { ResultWords } from '../model/index.js';

export const PART = 'journey_store';
const CHECK_EVERY_MS = 5_000;
const MAINTAIN_EVERY_MS = 3_600_000;

export interface JourneyStoreOptions {
  url: string;
  /** The store reached directly: migrations and partition drops (null: url). */
  migrateUrl: string | null;
  /** How `url` reaches PostgreSQL: directly, or through a transaction pooler (db/session.ts). */
  pooler: Pooler;
  /** A streaming replica for reads (StoreReads); null: reads go to the primary. */
  readUrl: string | null;
  /** A replica further behind than this is not read from. */
  maxReadLagSeconds: number;
  retentionDays: number;
  /** Steps queued or being written at once (StepStore). */
  maxPendingSteps: number;
  /** Connections of the primary's read pool (the API's reads), apart from the writes'. */
  readPoolSize: number;
  /** Every statement of the store's pools (writes, API reads). */
  statementTimeoutMs: number;
  /** How long a statement waits for a lock before it fails. */
  lockTimeoutMs: number;
  /** What the pipeline's result words mean (journeys.words.results). */
  results?: ResultWords;
}

export class JourneyStore implements Part {
  readonly name = PART;
  readonly pool: pg.Pool;
  readonly steps: StepStore;
  /** The read paths (API, Celery workflows, queue heads): the replica when there is one. */
  readonly reads: StoreReads;
  readonly queries: StepQueries;
  private readonly readPool: pg.Pool | null;
  /**
   * The API's reads on the primary: a pool apart, so that reads never starve writes (the dead
   * letters' API reads too: their state lives on the primary).
   */
  readonly primaryReads: pg.Pool;
  /** Sessions of their own (partition drops): on migrateUrl when there is one. */
  private readonly maintenance: pg.Pool | null;
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
    const timeouts = {
      statementTimeoutMs: opts.statementTimeoutMs,
      lockTimeoutMs: opts.lockTimeoutMs,
    };
    this.pool = new SessionPool(
      {
        connectionString: opts.url,
        max: 6,
        connectionTimeoutMillis: 5000,
        application_name: 'acktrail-journeys',
      },
      opts.pooler,
      timeouts,
    );
    // An idle connection that drops (a restart of PostgreSQL) is an error event, not a crash.
    this.pool.on('error', (err) => {
      reports.error(PART, err, 'journey store connection lost');
    });
    reports.register(PART);
    this.maintenance = opts.migrateUrl
      ? new pg.Pool({
          connectionString: opts.migrateUrl,
          max: 1,
          connectionTimeoutMillis: 5000,
          application_name: 'acktrail-maintenance',
        })
      : null;
    this.maintenance?.on('error', (err) => {
      reports.error(PART, err, 'journey store maintenance connection lost');
    });
    this.steps = new StepStore(
      this.pool,
      opts.maxPendingSteps,
      (err) => {
        if (err === null) this.markUp();
        else reports.down(PART, err, 'unavailable');
      },
      this.maintenance ?? this.pool,
      opts.results,
    );
    this.readPool = opts.readUrl
      ? new SessionPool(
          {
            connectionString: opts.readUrl,
            max: 6,
            connectionTimeoutMillis: 2000,
            application_name: 'acktrail-journeys-read',
          },
          opts.pooler,
          { statementTimeoutMs: opts.statementTimeoutMs },
        )
      : null;
    // A replica that goes away is the reads' concern (they fall back), never a crash.
    this.readPool?.on('error', () => undefined);
    this.primaryReads = new SessionPool(
      {
        connectionString: opts.url,
        max: opts.readPoolSize,
        connectionTimeoutMillis: 5000,
        application_name: 'acktrail-journeys-api',
      },
      opts.pooler,
      { statementTimeoutMs: opts.statementTimeoutMs },
    );
    this.primaryReads.on('error', (err) => {
      reports.error(PART, err, 'journey store read connection lost');
    });
    this.reads = new StoreReads(
      this.primaryReads,
      this.readPool,
      opts.maxReadLagSeconds,
      registry,
      log,
    );
    this.queries = new StepQueries(this.reads);
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
    await this.pool.end();
    await this.primaryReads.end();
    await this.readPool?.end();
    await this.maintenance?.end();
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
  }
}
