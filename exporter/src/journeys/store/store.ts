// Writes journey steps. Concurrent requests are grouped into one INSERT ... SELECT FROM
// json_to_recordset
// (group commit, at most WRITERS transactions at a time), and each caller's promise resolves only after the COMMIT that holds its steps:
// a 200 from the receiver means the steps are durable. ON CONFLICT (trace_id, span_id, time) DO
// NOTHING makes a retried export a no-op, and the rows actually inserted come back so that the
// derived metrics count each step once.
import { beginOf } from '../../db/session.js';
import type pg from 'pg';
import { PUBLISH_STAGES, isPublish } from '@acktrail/conventions';
import { findOrdering, type OrderingFinding, type VersionedDelivery } from '../ordering.js';
import { Partitions } from './partitions.js';
import type { Step } from '../steps.js';

const MAX_BATCH = 5000;
/**
 * Transactions in flight at once: several let PostgreSQL work on one batch while the next is
 * decoded and the one before commits (measured in docs/benchmarks.md).
 */
const WRITERS = 3;
/**
 * Two writes of one event's publishes in flight together (two writers, or two exporter replicas)
 * would not see each other's rows, and the duplicate publish would go uncounted. So a write takes
 * a transaction lock on its publishes' event ids (hashed into this many buckets, in order: no
 * deadlock, few locks) after its INSERT and before it counts: the second to count waits for the
 * first to commit, and sees its publish.
 */
const PUBLISH_LOCK_CLASS = 74_612;
const PUBLISH_LOCK_BUCKETS = 64;

export interface StoredStep {
  step: Step;
  /** Start and end of the parent span when it is a stored step (for stage waits). */
  parent: { stage: string; timeUs: number; endUs: number } | null;
}

export interface WriteResult {
  /** Steps that were new (not already stored), with what the derived metrics need. */
  inserted: StoredStep[];
  /** event_id -> publishes stored for it after this write (for events published in this write). */
  publishes: Map<string, number>;
  /** event_id -> start of its outbox.insert step, for events settled in this write. */
  insertedAt: Map<string, number>;
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
  const version = s.attrs['acktrail.aggregate_version'];
  if (s.stage !== 'deliver' || s.aggregateId === null || typeof version !== 'number') return [];
  const result = s.attrs['acktrail.result'];
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
  ) {
    this.partitions = new Partitions(pool, maintenance);
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
        insertedAt: new Map(),
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
      insertedAt: result.insertedAt,
      ordering: result.ordering.filter((f) => steps.some((s) => s.eventId === f.eventId)),
    };
  }

  private async insert(steps: Step[]): Promise<WriteResult> {
    await this.partitions.ensure(steps.map((s) => s.timeUs));
    const db = await this.pool.connect();
    try {
      await db.query(beginOf(this.pool));
      const priorMax = await this.versionMax(db, steps.flatMap(versionedDelivery));
      // One JSON document: cheaper to send and to parse than 15 parallel arrays (measured).
      const res = await db.query<{ trace_id: string; span_id: string }>(
        `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id,
            parent_span_id, name, status, status_message, aggregate_type, aggregate_id, anomaly, attrs)
         SELECT "eventId", to_timestamp("timeUs" / 1e6), "durationUs", stage, service, "traceId",
                "spanId", "parentSpanId", name, status, "statusMessage", "aggregateType",
                "aggregateId", anomaly, attrs
           FROM json_to_recordset($1::json) AS u("eventId" text, "timeUs" float8,
                "durationUs" int8, stage text, service text, "traceId" text, "spanId" text,
                "parentSpanId" text, name text, status text, "statusMessage" text,
                "aggregateType" text, "aggregateId" text, anomaly text, attrs jsonb)
         ON CONFLICT DO NOTHING
         RETURNING trace_id, span_id`,
        [JSON.stringify(steps)],
      );
      const fresh = new Set(res.rows.map((r) => r.trace_id + r.span_id));
      const inserted = steps.filter((s) => fresh.has(s.traceId + s.spanId));
      await this.lockPublishes(db, inserted);
      const [parents, publishes, insertedAt] = await Promise.all([
        this.parents(db, inserted),
        this.publishCounts(db, inserted),
        this.insertTimes(db, inserted),
      ]);
      await db.query('COMMIT');
      return {
        inserted: inserted.map((step) => ({
          step,
          parent: step.parentSpanId
            ? (parents.get(step.traceId + step.parentSpanId) ?? null)
            : null,
        })),
        publishes,
        insertedAt,
        ordering: findOrdering(inserted.flatMap(versionedDelivery), priorMax),
      };
    } catch (err) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      db.release();
    }
  }

  /** The highest version of each aggregate processed before this write. */
  private async versionMax(
    db: pg.PoolClient,
    versioned: VersionedDelivery[],
  ): Promise<Map<string, number>> {
    if (versioned.length === 0) return new Map();
    const res = await db.query<{ aggregate_id: string; v: string }>(
      `SELECT aggregate_id, max((attrs->>'acktrail.aggregate_version')::bigint)::text AS v
         FROM journey_steps
        WHERE aggregate_id = ANY($1) AND stage = 'deliver' AND attrs ? 'acktrail.aggregate_version'
          AND coalesce(attrs->>'acktrail.result', '') <> 'stale_skipped'
        GROUP BY aggregate_id`,
      [[...new Set(versioned.map((v) => v.aggregateId))]],
    );
    return new Map(res.rows.map((r) => [r.aggregate_id, Number(r.v)]));
  }

  /** Parents of new publish and deliver steps (outbox wait, queue wait). */
  private async parents(
    db: pg.PoolClient,
    steps: Step[],
  ): Promise<Map<string, StoredStep['parent']>> {
    const wanted = steps.filter(
      (s) => s.parentSpanId && (isPublish(s.stage) || s.stage === 'deliver'),
    );
    const out = new Map<string, StoredStep['parent']>();
    if (wanted.length === 0) return out;
    const res = await db.query<{ k: string; stage: string; t: number; d: string }>(
      `SELECT j.trace_id || j.span_id AS k, j.stage, (extract(epoch FROM j.time) * 1e6)::float8 AS t,
              j.duration_us AS d
         FROM journey_steps j
         JOIN unnest($1::text[], $2::text[]) AS w(trace_id, span_id)
           ON j.trace_id = w.trace_id AND j.span_id = w.span_id`,
      [wanted.map((s) => s.traceId), wanted.map((s) => s.parentSpanId)],
    );
    for (const r of res.rows) {
      const t = r.t;
      out.set(r.k, { stage: r.stage, timeUs: t, endUs: t + Number(r.d) });
    }
    return out;
  }

  private async lockPublishes(db: pg.PoolClient, steps: Step[]): Promise<void> {
    const ids = [...new Set(steps.filter((s) => isPublish(s.stage)).map((s) => s.eventId))];
    if (ids.length === 0) return;
    await db.query(
      `SELECT pg_advisory_xact_lock($1::int, b)
         FROM (SELECT DISTINCT abs(hashtext(id) % $2::int) AS b FROM unnest($3::text[]) AS id
                ORDER BY b) AS buckets`,
      [PUBLISH_LOCK_CLASS, PUBLISH_LOCK_BUCKETS, ids],
    );
  }

  private async publishCounts(db: pg.PoolClient, steps: Step[]): Promise<Map<string, number>> {
    const ids = [...new Set(steps.filter((s) => isPublish(s.stage)).map((s) => s.eventId))];
    if (ids.length === 0) return new Map();
    const res = await db.query<{ event_id: string; n: number }>(
      `SELECT event_id, count(*)::int AS n FROM journey_steps
        WHERE event_id = ANY($1) AND stage = ANY($2) GROUP BY event_id`,
      [ids, PUBLISH_STAGES],
    );
    return new Map(res.rows.map((r) => [r.event_id, r.n]));
  }

  private async insertTimes(db: pg.PoolClient, steps: Step[]): Promise<Map<string, number>> {
    const ids = [
      ...new Set(
        steps
          .filter((s) => s.stage === 'settle' && s.attrs['acktrail.result'] === 'sent')
          .map((s) => s.eventId),
      ),
    ];
    if (ids.length === 0) return new Map();
    const res = await db.query<{ event_id: string; t: number }>(
      `SELECT event_id, (extract(epoch FROM min(time)) * 1e6)::float8 AS t FROM journey_steps
        WHERE event_id = ANY($1) AND stage = 'outbox.insert' GROUP BY event_id`,
      [ids],
    );
    return new Map(res.rows.map((r) => [r.event_id, r.t]));
  }
}
