// The journeys that match what support and SREs filter by (journeys/search.ts): the events whose
// steps fall in a time range and match a stage, a service, a queue, an instrumentation, an
// anomaly or a Celery task, newest last step first, on a keyset cursor; and how many there are.
// Every filter is a parameter; the range is always bounded (the partitions of its days only).
import type pg from 'pg';
import { ATTR } from '@acktrail/conventions';
import { STEP_ATTR } from '../model/steps.js';
import type { Reader } from './replica.js';
import type { Cursor } from './step-reads.js';

/** What a journey's steps must match: one step matching all of them, in [sinceUs, untilUs). */
export interface StepFilter {
  sinceUs: number;
  untilUs: number;
  stage?: string;
  service?: string;
  /** A queue its steps name (acktrail.queue, or a Celery task's queue). */
  queue?: string;
  /** The instrumentation profile that wrote the step (acktrail.sdk). */
  sdk?: string;
  anomaly?: string;
  /** A Celery task's name. */
  task?: string;
  /** The aggregate the steps are of (index-backed). */
  aggregateId?: string;
  /**
   * Also the journeys of the messages dead-letter parking took (their event ids) in the range,
   * from the queue named where `queue` is given (x-death's first queue): a journey whose consumer's
   * spans record no reject is dead-lettered by its parked copy alone. Only with no filter but
   * `queue` and `anomaly: 'dead_lettered'` (a parked copy has no stage, service or SDK).
   */
  parked?: boolean;
}

/**
 * The plan a search runs with: never a sequential scan of a partition. Its range is bounded, and
 * the BRIN time index (migration 008) reads that range's blocks; without statistics (autovacuum
 * off, today's partition never analysed) or with rows loaded out of time order, the planner
 * prices the index as high as a scan of the whole day and picks the scan (10M steps: 264 ms
 * against 26 ms for the last hour, bench/journey-search.ts).
 */
const PLAN = 'SET LOCAL enable_seqscan = off';

const read = <R extends pg.QueryResultRow>(reader: Reader, text: string, values: unknown[]) =>
  reader.planned ? reader.planned<R>(PLAN, text, values) : reader.query<R>(text, values);

/** Counted exactly up to this many journeys; past it, "more than". */
export const COUNT_CAP = 10_000;

/** The matching steps' (event_id, t) rows, and parked dead letters' where asked: SQL and params. */
function matching(f: StepFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.sinceUs, f.untilUs];
  const clauses = ['time >= to_timestamp($1 / 1e6)', 'time < to_timestamp($2 / 1e6)'];
  const add = (sql: (p: string) => string, v: unknown) => {
    params.push(v);
    clauses.push(sql(`$${params.length}`));
  };
  if (f.stage !== undefined) add((p) => `stage = ${p}`, f.stage);
  if (f.service !== undefined) add((p) => `service = ${p}`, f.service);
  let queueParam = '';
  if (f.queue !== undefined)
    add((p) => {
      queueParam = p;
      return `(attrs->>'${ATTR.queue}' = ${p} OR attrs->>'celery.queue' = ${p})`;
    }, f.queue);
  if (f.sdk !== undefined) add((p) => `attrs->>'${STEP_ATTR.sdk}' = ${p}`, f.sdk);
  if (f.anomaly !== undefined) add((p) => `anomaly = ${p}`, f.anomaly);
  if (f.task !== undefined) add((p) => `attrs->>'celery.task.name' = ${p}`, f.task);
  if (f.aggregateId !== undefined) add((p) => `aggregate_id = ${p}`, f.aggregateId);
  let sql = `SELECT event_id, time AS t FROM journey_steps WHERE ${clauses.join(' AND ')}`;
  if (f.parked) {
    const parked = [
      'event_id IS NOT NULL',
      'parked_at >= to_timestamp($1 / 1e6)',
      'parked_at < to_timestamp($2 / 1e6)',
    ];
    if (f.queue !== undefined) parked.push(`deaths->0->>'queue' = ${queueParam}`);
    sql += ` UNION ALL SELECT event_id, parked_at AS t FROM dead_letters WHERE ${parked.join(' AND ')}`;
  }
  return { sql, params };
}

/** Journeys with a matching step, by their last matching step, newest first, after `cursor`. */
export async function searchEventIds(
  reader: Reader,
  f: StepFilter,
  cursor: Cursor | null,
  limit: number,
): Promise<Cursor[]> {
  const { sql, params } = matching(f);
  let having = '';
  if (cursor) {
    params.push(cursor.lastUs, cursor.eventId);
    having = `HAVING (max(t), event_id) < (to_timestamp($${params.length - 1} / 1e6), $${params.length})`;
  }
  params.push(limit);
  const res = await read<{ event_id: string; t: number }>(
    reader,
    `SELECT event_id, (extract(epoch FROM max(t)) * 1e6)::float8 AS t
       FROM (${sql}) m
      GROUP BY event_id ${having}
      ORDER BY max(t) DESC, event_id DESC LIMIT $${params.length}`,
    params,
  );
  return res.rows.map((r) => ({ eventId: r.event_id, lastUs: Math.round(r.t) }));
}

/** How many journeys have a matching step: exact up to COUNT_CAP, past it `exact` is false. */
export async function countEvents(
  reader: Reader,
  f: StepFilter,
): Promise<{ count: number; exact: boolean }> {
  const { sql, params } = matching(f);
  const res = await read<{ n: number }>(
    reader,
    `SELECT count(*)::int AS n FROM (
       SELECT DISTINCT event_id FROM (${sql}) m LIMIT ${COUNT_CAP + 1}) e`,
    params,
  );
  const n = res.rows[0]?.n ?? 0;
  return n > COUNT_CAP ? { count: COUNT_CAP, exact: false } : { count: n, exact: true };
}
