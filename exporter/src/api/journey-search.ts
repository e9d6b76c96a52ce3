// GET /api/journeys: the journeys list support and SREs find events with, without their id
// (journeys/search.ts). Every parameter bounded and checked before the store is read (400 naming
// it); a time range of at most RANGE_MAX_DAYS inside the store's retention; one page of at most
// 200 rows, in JSON or as CSV (`format=csv`: one line per journey, a cell that a spreadsheet would
// run as a formula is quoted as text).
import { z } from 'zod';
import { VERDICTS, type SearchPage, type SearchQuery } from '../journeys/search.js';
import { STEP_ANOMALIES } from '../journeys/model/steps.js';
import { PROFILE_IDS } from '../journeys/model/index.js';
import { UNIT_MS, encodeCursor, cursorParam } from './event-lists.js';
import { explain, ok, refusal, type Reply } from './reply.js';

/** The longest range one list reads. */
export const RANGE_MAX_DAYS = 31;
const DURATION = /^(\d{1,7})(s|m|h|d)$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T[\d:.]{2,15}(Z|[+-]\d{2}:?\d{2})?)?$/;
/** A name a step may carry: a queue, a service, a task (printable, bounded before any scan). */
const name = (what: string) =>
  z
    .string()
    .max(255, `is longer than any ${what}`)
    .regex(/^[\x20-\x7e\u00a0-\uffff]+$/, 'must be printable text')
    .optional();

/** A time: ISO 8601, or a duration back from now (`15m`); null when not given. */
const time = z
  .string()
  .max(40, 'is longer than any time or duration')
  .optional()
  .transform((s, ctx) => {
    if (s === undefined) return null;
    const m = DURATION.exec(s);
    const t = m
      ? Date.now() - Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
      : ISO_TIME.test(s)
        ? Date.parse(s)
        : Number.NaN;
    if (Number.isNaN(t)) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 time or a duration like 15m' });
      return z.NEVER;
    }
    return t;
  });

export const journeyQuery = z.strictObject({
  since: time,
  until: time,
  verdict: z.enum(VERDICTS).optional(),
  anomaly: z.enum(STEP_ANOMALIES).optional(),
  queue: name('queue'),
  service: name('service'),
  stage: name('stage'),
  sdk: z.enum(PROFILE_IDS).optional(),
  reason_group: name('reason group'),
  task: name('task name'),
  aggregate_id: name('aggregate id'),
  task_state: z
    .enum(['sent', 'received', 'started', 'succeeded', 'failed', 'retried', 'revoked', 'rejected'])
    .optional(),
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 200' })
    .int('must be a whole number from 1 to 200')
    .min(1, 'must be a whole number from 1 to 200')
    .max(200, 'must be a whole number from 1 to 200')
    .default(50),
  cursor: cursorParam,
  format: z.enum(['json', 'csv']).default('json'),
});

export type JourneyQuery = z.infer<typeof journeyQuery>;

/** The checked query as the search takes it, or why the range cannot be read. */
export function searchQueryOf(
  q: JourneyQuery,
  retentionDays: number,
  nowMs = Date.now(),
): SearchQuery | { refused: string } {
  const untilMs = q.until ?? nowMs;
  // An aggregate's journeys: all the store keeps, unless told; any other list: the last hour.
  const sinceMs =
    q.since ??
    (q.aggregate_id !== undefined ? nowMs - retentionDays * UNIT_MS.d : untilMs - UNIT_MS.h);
  if (sinceMs >= untilMs) return { refused: 'since: must be before until' };
  // An aggregate's journeys are found by its index: any range within the retention.
  if (q.aggregate_id === undefined && untilMs - sinceMs > RANGE_MAX_DAYS * UNIT_MS.d)
    return { refused: `since: the range may span ${RANGE_MAX_DAYS} days at most` };
  if (sinceMs < nowMs - retentionDays * UNIT_MS.d)
    return { refused: `since: the store keeps ${retentionDays} days (journeys.retentionDays)` };
  if (q.task_state && q.stage) return { refused: 'task_state: give it or stage, not both' };
  return {
    sinceMs,
    untilMs,
    verdict: q.verdict,
    anomaly: q.anomaly,
    queue: q.queue,
    service: q.service,
    stage: q.task_state ? `celery.${q.task_state}` : q.stage,
    sdk: q.sdk,
    task: q.task,
    aggregateId: q.aggregate_id,
    reasonGroup: q.reason_group,
    limit: q.limit,
    cursor: q.cursor,
  };
}

/** One CSV cell: quoted, quotes doubled, and text a spreadsheet would run as a formula made text. */
function cell(v: string | number | boolean | null): string {
  const s = v === null ? '' : String(v);
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
}

const COLUMNS = ['event_id', 'at', 'class', 'verdict', 'kinds', 'aggregate_id', 'deliveries'];

/** The page as CSV: one line per journey. */
export function pageCsv(page: SearchPage): string {
  const lines = page.rows.map((r) =>
    [r.eventId, r.at, r.class, r.verdict, r.kinds.join(' '), r.aggregate?.id ?? null, r.deliveries]
      .map(cell)
      .join(','),
  );
  return [COLUMNS.join(','), ...lines].join('\r\n') + '\r\n';
}

/** The reply to a checked query's page. */
export function pageReply(page: SearchPage, format: 'json' | 'csv'): Reply {
  const nextCursor = page.next ? encodeCursor(page.next) : null;
  if (format === 'csv')
    return {
      status: 200,
      body: pageCsv(page),
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="journeys.csv"',
        ...(nextCursor ? { 'x-next-cursor': nextCursor } : {}),
      },
    };
  return ok({
    journeys: page.rows,
    nextCursor,
    scanned: page.scanned,
    partial: page.partial,
    count: page.count,
  });
}

/** A query that does not parse: 400 naming the parameter. */
export const badQuery = (error: z.ZodError): Reply => refusal(400, explain(error));
