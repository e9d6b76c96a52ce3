// The query of an event list (GET /api/events?aggregate_id=&anomaly=&since=&limit=&cursor=), each
// parameter bounded and checked before anything reads the store (400 naming the parameter), its
// keyset cursor, and the summary each listed event is shown as.
import { EVENT_ID_SHAPE } from '@acktrail/conventions';
import { z } from 'zod';
import type { Cursor, EventSummary } from '../journeys/store/index.js';
import type { ListedEvent } from '../journeys/lists.js';
import { STEP_ANOMALIES } from '../journeys/model/steps.js';

export const LIST_ANOMALIES = [...STEP_ANOMALIES, 'published_twice', 'stuck_in_outbox'] as const;
/** An event or aggregate id: 1-128 printable ASCII characters. */
export const ID = EVENT_ID_SHAPE;

const DURATION = /^(\d{1,7})(s|m|h|d)$/;
export const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T[\d:.]{2,15}(Z|[+-]\d{2}:?\d{2})?)?$/;
/** How far back `since` may reach: ten years (the outbox keeps rows the journey store dropped). */
const MAX_SINCE_DAYS = 3650;
/** The latest time a cursor may name: a little past now (clocks differ). */
const CURSOR_SLACK_MS = 86_400_000;

/**
 * `since`: an ISO 8601 time or a duration back from now (`90s`, `15m`, `6h`, `7d`), at most
 * MAX_SINCE_DAYS back and not in the future. Unset: the last 24 hours, except for rows stuck in
 * the outbox, which are listed however old they are.
 */
const since = z
  .string()
  .max(40, 'is longer than any time or duration')
  .optional()
  .transform((s, ctx) => {
    if (s === undefined) return null;
    const now = Date.now();
    const m = DURATION.exec(s);
    const t = m
      ? now - Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
      : ISO_TIME.test(s)
        ? Date.parse(s)
        : Number.NaN;
    if (Number.isNaN(t)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an ISO 8601 time or a duration like 15m, 6h, 7d',
      });
      return z.NEVER;
    }
    if (t < now - MAX_SINCE_DAYS * UNIT_MS.d || t > now) {
      ctx.addIssue({
        code: 'custom',
        message: `must lie within the last ${MAX_SINCE_DAYS} days, not in the future`,
      });
      return z.NEVER;
    }
    return t;
  });

/** A keyset cursor this API returned (base64url of "<last step µs>|<event id>"). */
export const cursorParam = z
  .string()
  .max(400, 'is not a cursor returned by this API')
  .optional()
  .transform((s, ctx) => {
    if (s === undefined) return null;
    const [t, ...rest] = Buffer.from(s, 'base64url').toString('utf8').split('|');
    const id = rest.join('|');
    const us = Number(t);
    if (!t || !/^\d{1,17}$/.test(t) || us > (Date.now() + CURSOR_SLACK_MS) * 1000 || !ID.test(id)) {
      ctx.addIssue({ code: 'custom', message: 'is not a cursor returned by this API' });
      return z.NEVER;
    }
    return { lastUs: us, eventId: id } satisfies Cursor;
  });

export const listQuery = z.strictObject({
  aggregate_id: z.string().regex(ID, 'must be 1-128 printable ASCII characters').optional(),
  anomaly: z.enum(LIST_ANOMALIES).optional(),
  since,
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 500' })
    .int('must be a whole number from 1 to 500')
    .min(1, 'must be a whole number from 1 to 500')
    .max(500, 'must be a whole number from 1 to 500')
    .default(50),
  cursor: cursorParam,
});

export const encodeCursor = (c: Cursor) =>
  Buffer.from(`${c.lastUs}|${c.eventId}`).toString('base64url');
const iso = (us: number) => new Date(us / 1000).toISOString();

export function summaryJson(s: EventSummary) {
  return {
    eventId: s.eventId,
    aggregate: s.aggregateId ? { type: s.aggregateType, id: s.aggregateId } : null,
    firstSeen: iso(s.firstSeenUs),
    lastSeen: iso(s.lastSeenUs),
    steps: s.steps,
    anomalies: s.anomalies,
  };
}

/**
 * A listed event as the API shows it: its summary, and when a stuck one's outbox row was made. A
 * stuck row no span has named yet has the same fields (its times are its row's, its aggregate its
 * row's, its anomaly stuck_in_outbox), so that a list reads it as its page does.
 */
export function listedJson(e: ListedEvent) {
  const made = e.outboxCreatedAt?.toISOString();
  const shown = e.summary
    ? summaryJson(e.summary)
    : {
        eventId: e.eventId,
        aggregate: e.aggregateId ? { type: null, id: e.aggregateId } : null,
        ...(made ? { firstSeen: made, lastSeen: made } : {}),
        steps: 0,
        anomalies: e.outboxCreatedAt ? ['stuck_in_outbox'] : [],
      };
  return made ? { ...shown, outboxCreatedAt: made } : shown;
}
