// journey_events: the first and last day (UTC) of each event's steps (migration 005), so that the
// reads by event id touch only the partitions that hold the event: one probe of this table's key
// and one of each of those days' event index, instead of one per day in retention.
import type pg from 'pg';
import type { Step } from '../model/steps.js';
import type { Reader } from './replica.js';

export const DAY_MS = 86_400_000;
const DAY_US = DAY_MS * 1000;

/** The time range that holds every step of the events asked for: from <= time < to. */
export interface DayRange {
  from: Date;
  to: Date;
}

/** The days that hold every stored step of a write's events, read once when first asked. */
export type WriteDays = () => Promise<DayRange | null>;

/** The range of whole days [first, last] (days since the epoch). */
const rangeOfDays = (first: number, last: number): DayRange => ({
  from: new Date(first * DAY_MS),
  to: new Date((last + 1) * DAY_MS),
});

/**
 * Records the days of the new steps, in the transaction that inserts them, and returns how to
 * read the days that now hold every stored step of their events (the write's own reads look only
 * there; a write that reads nothing by event never asks). New events are inserted (in event_id
 * order, so that two writers never wait on each other in a cycle); an event already there is
 * updated only when a step falls outside its days, so most writes lock nothing. An event this
 * write inserted holds only this write's days: no other writer can widen it before this one
 * commits (its row is ours until then), so only the events already there are read back.
 */
export async function recordEventDays(
  db: pg.PoolClient,
  steps: readonly Step[],
): Promise<WriteDays> {
  if (steps.length === 0) return () => Promise.resolve(null);
  const days = new Map<string, [number, number]>();
  let first = Infinity;
  let last = -Infinity;
  for (const s of steps) {
    const day = Math.floor(s.timeUs / DAY_US);
    first = Math.min(first, day);
    last = Math.max(last, day);
    const seen = days.get(s.eventId);
    if (!seen) days.set(s.eventId, [day, day]);
    else if (day < seen[0]) seen[0] = day;
    else if (day > seen[1]) seen[1] = day;
  }
  const paramsOf = (ids: string[]) => [
    ids,
    ids.map((id) => days.get(id)![0]),
    ids.map((id) => days.get(id)![1]),
  ];
  const given = `unnest($1::text[], $2::int[], $3::int[]) AS u(event_id, first, last)`;
  const inserted = await db.query<{ event_id: string }>(
    `INSERT INTO journey_events (event_id, first_day, last_day)
     SELECT event_id, date '1970-01-01' + first, date '1970-01-01' + last FROM ${given}
     ORDER BY event_id
     ON CONFLICT (event_id) DO NOTHING
     RETURNING event_id`,
    paramsOf([...days.keys()]), // the INSERT orders them itself
  );
  const fresh = new Set(inserted.rows.map((r) => r.event_id));
  const known = [...days.keys()].filter((id) => !fresh.has(id));
  const own = rangeOfDays(first, last);
  if (known.length === 0) return () => Promise.resolve(own);
  // A statement of its own: it sees an event another writer inserted and committed meanwhile
  // (the INSERT above waited for that commit). Two writers widening the same two events in
  // opposite orders could deadlock; PostgreSQL then fails one write, which the SDK retries (503).
  await db.query(
    `UPDATE journey_events e
        SET first_day = least(e.first_day, date '1970-01-01' + u.first),
            last_day = greatest(e.last_day, date '1970-01-01' + u.last)
       FROM ${given}
      WHERE e.event_id = u.event_id
        AND (date '1970-01-01' + u.first < e.first_day OR date '1970-01-01' + u.last > e.last_day)`,
    paramsOf(known),
  );
  let read: Promise<DayRange | null> | undefined;
  return () =>
    (read ??= eventDays(db, known).then((range) =>
      range === null
        ? own
        : {
            from: range.from < own.from ? range.from : own.from,
            to: range.to > own.to ? range.to : own.to,
          },
    ));
}

/** The days that hold the steps of these events, or null when none of them has any. */
export async function eventDays(
  reader: Reader,
  eventIds: readonly string[],
): Promise<DayRange | null> {
  const res = await reader.query<{ first: number | null; last: number | null }>(
    `SELECT min(first_day - date '1970-01-01') AS first, max(last_day - date '1970-01-01') AS last
       FROM journey_events WHERE event_id = ANY($1)`,
    [eventIds],
  );
  const row = res.rows[0];
  if (!row || row.first === null || row.last === null) return null;
  return rangeOfDays(row.first, row.last);
}

/** Forgets the events whose last day ended before `horizonMs` (their partitions are dropped). */
export async function dropExpiredEvents(db: pg.PoolClient, horizonMs: number): Promise<void> {
  await db.query(`DELETE FROM journey_events WHERE last_day < date '1970-01-01' + $1::int`, [
    Math.floor(horizonMs / DAY_MS),
  ]);
}
