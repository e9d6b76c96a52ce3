// Writes journey steps. Concurrent requests are grouped into one write (group commit, at most
// WRITERS transactions at a time): the rows go by COPY into a staging table, then into
// journey_steps by one INSERT ... SELECT (staged-rows.ts). Each caller's promise resolves only
// after the COMMIT that holds its steps:
// a 200 from the receiver means the steps are durable. ON CONFLICT (trace_id, span_id, time) DO
// NOTHING makes a retried export a no-op, and the rows actually inserted come back so that the
// derived metrics count each step once.
import { withTransaction } from '../../db/checkout.js';
import type pg from 'pg';
import {
  NO_RESULT_WORDS,
  findOrdering,
  type OrderingFinding,
  type ResultWords,
  type Return,
  type VersionedDelivery,
} from '../model/index.js';
import { recordEventDays } from './event-days.js';
import { Partitions } from './partitions.js';
import { CREATE_STAGING_TABLE, STAGED_STEPS, stageSteps } from './staged-rows.js';
import { ATTR } from '@acktrail/conventions';
import type { Step } from '../model/steps.js';
import {
  lockPublishes,
  parents,
  publishCounts,
  startTimes,
  storedReturns,
  versionMax,
  type ParentStep,
} from './write-queries.js';

const MAX_BATCH = 5000;
/**
 * Transactions in flight at once: several let PostgreSQL work on one batch while the next is
 * decoded and the one before commits (measured in docs/benchmarks-history.md).
 */
const WRITERS = 3;

export interface StoredStep {
  step: Step;
  /** Start and end of the parent span when it is a stored step (for stage waits). */
  parent: ParentStep | null;
}

export interface WriteResult {
  /** Steps that were new (not already stored), with what the derived metrics need. */
  inserted: StoredStep[];
  /** event_id -> publishes stored for it after this write (for events published in this write). */
  publishes: Map<string, number>;
  /** event_id -> when its journey began (write-queries.ts), for events acked in this write. */
  startedAt: Map<string, number>;
  /** Departures from version order among the new versioned deliveries. */
  ordering: OrderingFinding[];
}

interface Pending {
  steps: Step[];
  resolve: (r: WriteResult) => void;
  reject: (e: unknown) => void;
}

/** A delivery step that carries an aggregate version, as the ordering check reads it. */
function versionedDelivery(s: Step): VersionedDelivery[] {
  const version = s.attrs[ATTR.aggregateVersion];
  if (s.stage !== 'deliver' || s.aggregateId === null || typeof version !== 'number') return [];
  const result = s.attrs[ATTR.result];
  return [
    {
      eventId: s.eventId,
      aggregateId: s.aggregateId,
      version,
      timeUs: s.timeUs,
      result: typeof result === 'string' ? result : null,
    },
  ];
}

/** The write queue is full: the caller should answer "retry later" (503), nothing was queued. */
export class StoreBusyError extends Error {
  readonly code = 'STORE_BUSY';
}

/**
 * PostgreSQL refused the steps themselves (a data or constraint error, SQLSTATE class 22 or 23):
 * a retry would fail the same way, so the caller drops them and says so.
 */
export class StepsRefusedError extends Error {
  readonly code = 'STEPS_REFUSED';
}

const isDataError = (err: unknown) => /^2[23]/.test((err as { code?: string }).code ?? '');

export class StepStore {
  readonly partitions: Partitions;
  private queue: Pending[] = [];
  private writers = 0;
  /** Steps queued or being written. */
  private pending = 0;

  /**
   * @param maxPendingSteps steps queued or being written at once; a write beyond it is refused
   *   with StoreBusyError at once, so a slow store never makes the queue grow without bound.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly maxPendingSteps = 100_000,
    /** Told of every write: null when it committed, the error when the store failed it. */
    private readonly report: (err: unknown) => void = () => undefined,
    /** Connections with a session of their own, for partition drops (Partitions). */
    maintenance: pg.Pool = pool,
    /** What the pipeline's result words mean (stale versions, work done). */
    private readonly words: ResultWords = NO_RESULT_WORDS,
    /** Told how long each write's transaction took (seconds), and whether it committed. */
    private readonly timed: (seconds: number, committed: boolean) => void = () => undefined,
  ) {
    this.partitions = new Partitions(pool, maintenance);
  }

  /** The returns already stored among those a write brings (fate.ts, delivery limits). */
  storedReturns(wanted: readonly Return[]): Promise<Return[]> {
    return storedReturns(this.pool, wanted);
  }

  /** Steps queued or being written now. */
  get pendingSteps(): number {
    return this.pending;
  }

  /** Resolves once every step is committed (or was already stored). */
  write(steps: Step[]): Promise<WriteResult> {
    if (steps.length === 0)
      return Promise.resolve({
        inserted: [],
        publishes: new Map(),
        startedAt: new Map(),
        ordering: [],
      });
    // One write larger than the whole bound still goes through when nothing else is pending.
    if (this.pending > 0 && this.pending + steps.length > this.maxPendingSteps)
      return Promise.reject(
        new StoreBusyError(`${this.pending} steps are waiting for the journey store`),
      );
    this.pending += steps.length;
    return new Promise<WriteResult>((resolve, reject) => {
      this.queue.push({ steps, resolve, reject });
      if (this.writers < WRITERS) void this.drain();
    }).finally(() => {
      this.pending -= steps.length;
    });
  }

  private async drain(): Promise<void> {
    this.writers++;
    while (this.queue.length > 0) {
      const group: Pending[] = [];
      let rows = 0;
      while (this.queue.length > 0 && (group.length === 0 || rows < MAX_BATCH)) {
        const next = this.queue.shift()!;
        group.push(next);
        rows += next.steps.length;
      }
      try {
        const all = group.flatMap((p) => p.steps);
        const result = await this.insert(all);
        this.report(null);
        for (const p of group) p.resolve(this.share(result, p.steps));
      } catch (err) {
        if (!isDataError(err)) {
          this.report(err);
          for (const p of group) p.reject(err);
        } else {
          // One caller's steps must not fail the others grouped with them: each alone.
          await this.alone(group, err);
        }
      }
    }
    this.writers--;
  }

  private async alone(group: Pending[], groupError: unknown): Promise<void> {
    for (const p of group) {
      try {
        if (group.length === 1) throw groupError;
        const result = await this.insert(p.steps);
        this.report(null);
        p.resolve(result);
      } catch (err) {
        if (isDataError(err)) {
          p.reject(new StepsRefusedError(`the store refused the steps: ${(err as Error).message}`));
        } else {
          this.report(err);
          p.reject(err);
        }
      }
    }
  }

  /** Each caller gets the part of the write result that concerns its own steps. */
  private share(result: WriteResult, steps: Step[]): WriteResult {
    const mine = new Set(steps);
    return {
      inserted: result.inserted.filter((s) => mine.has(s.step)),
      publishes: result.publishes,
      startedAt: result.startedAt,
      ordering: result.ordering.filter((f) => steps.some((s) => s.eventId === f.eventId)),
    };
  }

  private async insert(steps: Step[]): Promise<WriteResult> {
    const started = performance.now();
    try {
      const result = await this.transaction(steps);
      this.timed((performance.now() - started) / 1000, true);
      return result;
    } catch (err) {
      this.timed((performance.now() - started) / 1000, false);
      throw err;
    }
  }

  private async transaction(steps: Step[]): Promise<WriteResult> {
    await this.partitions.ensure(steps.map((s) => s.timeUs));
    return withTransaction(
      this.pool,
      async (db) => {
        const priorMax = await versionMax(db, steps.flatMap(versionedDelivery), this.words);
        await stageSteps(db, steps);
        const res = await db.query<{ trace_id: string; span_id: string }>(
          `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id,
              parent_span_id, name, status, status_message, aggregate_type, aggregate_id, anomaly, attrs)
           ${STAGED_STEPS}
           ON CONFLICT DO NOTHING
           RETURNING trace_id, span_id`,
        );
        const fresh = new Set(res.rows.map((r) => r.trace_id + r.span_id));
        const inserted = steps.filter((s) => fresh.has(s.traceId + s.spanId));
        const days = await recordEventDays(db, inserted);
        await lockPublishes(db, inserted);
        // One after the other: a connection runs one statement at a time anyway, and pg 8
        // deprecates queueing a second on it while the first runs (pg 9 refuses it).
        const parentSteps = await parents(db, inserted, days, steps);
        const publishes = await publishCounts(db, inserted, days);
        const startedAt = await startTimes(db, inserted, days);
        return {
          inserted: inserted.map((step) => ({
            step,
            parent: step.parentSpanId
              ? (parentSteps.get(step.traceId + step.parentSpanId) ?? null)
              : null,
          })),
          publishes,
          startedAt,
          ordering: findOrdering(inserted.flatMap(versionedDelivery), this.words, priorMax),
        };
      },
      CREATE_STAGING_TABLE,
    );
  }
}
