// The statements a write runs beside its INSERT (step-store.ts): what the derived metrics need of the
// steps stored before it, and what the model needs to decide a step at ingest. The reads by event
// look only at the days that hold the write's events (journey_events, `days`): PostgreSQL then
// probes those days' partitions, not every day in retention. They name their events and no stage
// in WHERE (the stage is the aggregate's FILTER): a stage there lets the planner prove the partial
// publishes index (time, event_id) and, on a day's partition without statistics (autovacuum off,
// or not there yet), read the whole day's publishes through it: 52 ms against 0.8 ms for 100
// events at 300,000 steps today (`npm run bench -- day-fill`), growing with the day. With only the
// event and the day, the event index is the one that fits, whatever the statistics say
// (partitions.int.test.ts checks the plans).
import type pg from 'pg';
import { ATTR, PUBLISH_STAGES, isPublish } from '@acktrail/conventions';
import {
  outcomeOf,
  type ResultWords,
  type Return,
  type VersionedDelivery,
} from '../model/index.js';
import type { Step } from '../model/steps.js';
import type { WriteDays } from './event-days.js';

/** A stored step that is the parent of a new one (stage waits). */
export interface ParentStep {
  stage: string;
  timeUs: number;
  endUs: number;
}

/** Where a journey begins: its outbox insert, or without an outbox its first publish. */
const JOURNEY_START_STAGES = ['outbox.insert', ...PUBLISH_STAGES];

/**
 * Two writes of one event's publishes in flight together (two writers, or two exporter replicas)
 * would not see each other's rows, and the duplicate publish would go uncounted. So a write takes
 * a transaction lock on its publishes' event ids (hashed into this many buckets, in order: no
 * deadlock, few locks) after its INSERT and before it counts: the second to count waits for the
 * first to commit, and sees its publish.
 */
const PUBLISH_LOCK_CLASS = 74_612;
const PUBLISH_LOCK_BUCKETS = 64;

/** The highest version of each aggregate processed before this write. */
export async function versionMax(
  db: pg.PoolClient,
  versioned: VersionedDelivery[],
  words: ResultWords,
): Promise<Map<string, number>> {
  if (versioned.length === 0) return new Map();
  const res = await db.query<{ aggregate_id: string; v: string }>(
    `SELECT aggregate_id, max((attrs->>'${ATTR.aggregateVersion}')::bigint)::text AS v
       FROM journey_steps
      WHERE aggregate_id = ANY($1) AND stage = 'deliver' AND attrs ? '${ATTR.aggregateVersion}'
        AND NOT coalesce(attrs->>'${ATTR.result}', '') = ANY($2)
      GROUP BY aggregate_id`,
    [[...new Set(versioned.map((v) => v.aggregateId))], words.stale],
  );
  return new Map(res.rows.map((r) => [r.aggregate_id, Number(r.v)]));
}

/** Each step of a write by its span and event, for the parents found in the write itself. */
function bySpan(written: readonly Step[]): Map<string, Step | null> {
  const out = new Map<string, Step | null>();
  for (const s of written) {
    const k = `${s.traceId}${s.spanId}\u0000${s.eventId}`;
    // Two steps of one span (a batch receive's delivery and settle): the store decides.
    out.set(k, out.has(k) ? null : s);
  }
  return out;
}

/**
 * Parents of new publish and deliver steps (outbox wait, queue wait). The parents the metrics use
 * are steps of the same event (the outbox insert of a publish, the publish of a delivery), so
 * they lie in the days of the write's events. A parent among the write's own steps (a journey
 * sent whole) is taken from there, as stored (whole microseconds); the others are read.
 */
export async function parents(
  db: pg.PoolClient,
  steps: Step[],
  days: WriteDays,
  written: readonly Step[],
): Promise<Map<string, ParentStep>> {
  const out = new Map<string, ParentStep>();
  const own = bySpan(written);
  const wanted = steps.filter((s) => {
    if (!s.parentSpanId || !(isPublish(s.stage) || s.stage === 'deliver')) return false;
    const parent = own.get(`${s.traceId}${s.parentSpanId}\u0000${s.eventId}`);
    if (!parent) return true;
    const timeUs = Math.round(parent.timeUs);
    out.set(s.traceId + s.parentSpanId, {
      stage: parent.stage,
      timeUs,
      endUs: timeUs + parent.durationUs,
    });
    return false;
  });
  const range = wanted.length > 0 ? await days() : null;
  if (!range) return out;
  const res = await db.query<{ k: string; stage: string; t: number; d: string }>(
    `SELECT j.trace_id || j.span_id AS k, j.stage, (extract(epoch FROM j.time) * 1e6)::float8 AS t,
            j.duration_us AS d
       FROM journey_steps j
       JOIN unnest($1::text[], $2::text[], $3::text[]) AS w(trace_id, span_id, event_id)
         ON j.trace_id = w.trace_id AND j.span_id = w.span_id AND j.event_id = w.event_id
      WHERE j.time >= $4 AND j.time < $5`,
    [
      wanted.map((s) => s.traceId),
      wanted.map((s) => s.parentSpanId),
      wanted.map((s) => s.eventId),
      range.from,
      range.to,
    ],
  );
  for (const r of res.rows) {
    const t = r.t;
    out.set(r.k, { stage: r.stage, timeUs: t, endUs: t + Number(r.d) });
  }
  return out;
}

export async function lockPublishes(db: pg.PoolClient, steps: Step[]): Promise<void> {
  const ids = [...new Set(steps.filter((s) => isPublish(s.stage)).map((s) => s.eventId))];
  if (ids.length === 0) return;
  await db.query(
    `SELECT pg_advisory_xact_lock($1::int, b)
       FROM (SELECT DISTINCT abs(hashtext(id) % $2::int) AS b FROM unnest($3::text[]) AS id
              ORDER BY b) AS buckets`,
    [PUBLISH_LOCK_CLASS, PUBLISH_LOCK_BUCKETS, ids],
  );
}

/** Per event ($1), its steps of the stages $2 in [$3, $4): their count. */
export const PUBLISH_COUNTS = `SELECT event_id, count(*) FILTER (WHERE stage = ANY($2))::int AS n
   FROM journey_steps WHERE event_id = ANY($1) AND time >= $3 AND time < $4 GROUP BY event_id`;

export async function publishCounts(
  db: pg.PoolClient,
  steps: Step[],
  days: WriteDays,
): Promise<Map<string, number>> {
  const ids = [...new Set(steps.filter((s) => isPublish(s.stage)).map((s) => s.eventId))];
  const range = ids.length > 0 ? await days() : null;
  if (!range) return new Map();
  const res = await db.query<{ event_id: string; n: number }>(PUBLISH_COUNTS, [
    ids,
    PUBLISH_STAGES,
    range.from,
    range.to,
  ]);
  return new Map(res.rows.flatMap((r) => (r.n > 0 ? [[r.event_id, r.n] as const] : [])));
}

/** Per event ($1), the start of its first step of the stages $2 in [$3, $4) (us), or null. */
export const JOURNEY_STARTS = `SELECT event_id,
        (extract(epoch FROM min(time) FILTER (WHERE stage = ANY($2))) * 1e6)::float8 AS t
   FROM journey_steps WHERE event_id = ANY($1) AND time >= $3 AND time < $4 GROUP BY event_id`;

/**
 * When the journeys of events acked in this write began: the start of each one's first stored
 * outbox insert or publish. The `end_to_end` duration runs from there to the ack of the delivery
 * that did the work (the metrics ask the journey model which one did).
 */
export async function startTimes(
  db: pg.PoolClient,
  steps: Step[],
  days: WriteDays,
): Promise<Map<string, number>> {
  const acked = steps.filter((s) => s.stage === 'settle' && outcomeOf(s.attrs) === 'ack');
  const ids = [...new Set(acked.map((s) => s.eventId))];
  const range = ids.length > 0 ? await days() : null;
  if (!range) return new Map();
  const res = await db.query<{ event_id: string; t: number | null }>(JOURNEY_STARTS, [
    ids,
    JOURNEY_START_STAGES,
    range.from,
    range.to,
  ]);
  return new Map(res.rows.flatMap((r) => (r.t === null ? [] : [[r.event_id, r.t] as const])));
}

/** The returns (settles with nack_requeue) stored for these events on these queues. */
export async function storedReturns(db: pg.Pool, wanted: readonly Return[]): Promise<Return[]> {
  if (wanted.length === 0) return [];
  const res = await db.query<{ event_id: string; queue: string; t: number; span_id: string }>(
    `SELECT j.event_id, j.attrs->>'${ATTR.queue}' AS queue, j.span_id,
            (extract(epoch FROM j.time) * 1e6)::float8 AS t
       FROM journey_steps j
       JOIN (SELECT DISTINCT * FROM unnest($1::text[], $2::text[])) AS w(event_id, queue)
         ON j.event_id = w.event_id AND j.attrs->>'${ATTR.queue}' = w.queue
      WHERE j.stage = 'settle' AND j.attrs->>'${ATTR.settleOutcome}' = 'nack_requeue'`,
    [wanted.map((r) => r.eventId), wanted.map((r) => r.queue)],
  );
  return res.rows.map((r) => ({
    eventId: r.event_id,
    queue: r.queue,
    timeUs: r.t,
    spanId: r.span_id,
  }));
}
