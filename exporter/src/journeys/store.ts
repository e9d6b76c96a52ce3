// Writes journey steps. Concurrent requests are grouped into one INSERT ... SELECT FROM unnest
// (group commit), and each caller's promise resolves only after the COMMIT that holds its steps:
// a 200 from the receiver means the steps are durable. ON CONFLICT (trace_id, span_id, time) DO
// NOTHING makes a retried export a no-op, and the rows actually inserted come back so that the
// derived metrics count each step once.
import type pg from 'pg';
import { Partitions } from './partitions.js';
import type { Step } from './steps.js';

const MAX_BATCH = 5000;

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
}

interface Pending {
  steps: Step[];
  resolve: (r: WriteResult) => void;
  reject: (e: unknown) => void;
}

export class StepStore {
  readonly partitions: Partitions;
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;

  constructor(private readonly pool: pg.Pool) {
    this.partitions = new Partitions(pool);
  }

  /** Resolves once every step is committed (or was already stored). */
  write(steps: Step[]): Promise<WriteResult> {
    if (steps.length === 0)
      return Promise.resolve({ inserted: [], publishes: new Map(), insertedAt: new Map() });
    return new Promise((resolve, reject) => {
      this.queue.push({ steps, resolve, reject });
      this.flushing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
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
        for (const p of group) p.resolve(this.share(result, p.steps));
      } catch (err) {
        for (const p of group) p.reject(err);
      }
    }
    this.flushing = null;
  }

  /** Each caller gets the part of the write result that concerns its own steps. */
  private share(result: WriteResult, steps: Step[]): WriteResult {
    const mine = new Set(steps);
    return {
      inserted: result.inserted.filter((s) => mine.has(s.step)),
      publishes: result.publishes,
      insertedAt: result.insertedAt,
    };
  }

  private async insert(steps: Step[]): Promise<WriteResult> {
    await this.partitions.ensure(steps.map((s) => s.timeUs));
    const cols = {
      event_id: [] as string[],
      time_us: [] as number[],
      duration_us: [] as number[],
      stage: [] as string[],
      service: [] as string[],
      trace_id: [] as string[],
      span_id: [] as string[],
      parent_span_id: [] as (string | null)[],
      name: [] as string[],
      status: [] as string[],
      status_message: [] as (string | null)[],
      aggregate_type: [] as (string | null)[],
      aggregate_id: [] as (string | null)[],
      anomaly: [] as (string | null)[],
      attrs: [] as string[],
    };
    for (const s of steps) {
      cols.event_id.push(s.eventId);
      cols.time_us.push(s.timeUs);
      cols.duration_us.push(s.durationUs);
      cols.stage.push(s.stage);
      cols.service.push(s.service);
      cols.trace_id.push(s.traceId);
      cols.span_id.push(s.spanId);
      cols.parent_span_id.push(s.parentSpanId);
      cols.name.push(s.name);
      cols.status.push(s.status);
      cols.status_message.push(s.statusMessage);
      cols.aggregate_type.push(s.aggregateType);
      cols.aggregate_id.push(s.aggregateId);
      cols.anomaly.push(s.anomaly);
      cols.attrs.push(JSON.stringify(s.attrs));
    }
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      const res = await db.query<{ trace_id: string; span_id: string }>(
        `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id,
            parent_span_id, name, status, status_message, aggregate_type, aggregate_id, anomaly, attrs)
         SELECT event_id, to_timestamp(time_us / 1e6), duration_us, stage, service, trace_id,
                span_id, parent_span_id, name, status, status_message, aggregate_type,
                aggregate_id, anomaly, attrs::jsonb
           FROM unnest($1::text[], $2::float8[], $3::int8[], $4::text[], $5::text[], $6::text[],
                       $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
                       $13::text[], $14::text[], $15::text[])
             AS u(event_id, time_us, duration_us, stage, service, trace_id, span_id,
                  parent_span_id, name, status, status_message, aggregate_type, aggregate_id,
                  anomaly, attrs)
         ON CONFLICT DO NOTHING
         RETURNING trace_id, span_id`,
        Object.values(cols),
      );
      const fresh = new Set(res.rows.map((r) => r.trace_id + r.span_id));
      const inserted = steps.filter((s) => fresh.has(s.traceId + s.spanId));
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
      };
    } catch (err) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      db.release();
    }
  }

  /** Parents of new publish and deliver steps (outbox wait, queue wait). */
  private async parents(
    db: pg.PoolClient,
    steps: Step[],
  ): Promise<Map<string, StoredStep['parent']>> {
    const wanted = steps.filter(
      (s) => s.parentSpanId && (s.stage === 'outbox.publish' || s.stage === 'deliver'),
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

  private async publishCounts(db: pg.PoolClient, steps: Step[]): Promise<Map<string, number>> {
    const ids = [
      ...new Set(steps.filter((s) => s.stage === 'outbox.publish').map((s) => s.eventId)),
    ];
    if (ids.length === 0) return new Map();
    const res = await db.query<{ event_id: string; n: number }>(
      `SELECT event_id, count(*)::int AS n FROM journey_steps
        WHERE event_id = ANY($1) AND stage = 'outbox.publish' GROUP BY event_id`,
      [ids],
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
