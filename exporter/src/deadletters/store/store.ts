// SQL of the dead-letter store (migrations/003_dead_letters.sql): parking, triage, the state
// changes of replay and discard, and the audit log. Every statement is parameterised; every list
// is bounded.
import type { Database } from '../../db/checkout.js';
import type { ParkedMessage } from '../../journeys/service.js';
import { parkRows, type ParkRow } from './park.js';
import {
  COLUMNS,
  toDeadLetter,
  type AuditEntry,
  type DeadLetter,
  type Group,
  type Row,
  type State,
} from '../model/rows.js';

export type { ParkRow };
export { STATES, type AuditEntry, type DeadLetter, type Group, type State } from '../model/rows.js';

export class DeadLetterStore {
  constructor(
    private readonly pool: Database,
    private readonly retentionDays: number,
    /** The API's reads (lists, groups, one message, the audit log): the primary's read pool. */
    private readonly reads: Database = pool,
  ) {}

  /** Parks messages (park.ts); resolves once they are committed, with whether each was new. */
  park(rows: ParkRow[]): Promise<boolean[]> {
    return parkRows(this.pool, this.retentionDays, rows);
  }

  /** Failure groups of what is parked now, largest first. */
  async groups(limit: number): Promise<Group[]> {
    const res = await this.reads.query<{
      queue: string;
      reason_group: string;
      count: number;
      first_seen: Date;
      last_seen: Date;
      examples: (string | null)[] | null;
    }>(
      `SELECT queue, reason_group, count(*)::int AS count, min(parked_at) AS first_seen,
              max(parked_at) AS last_seen,
              (array_agg(event_id ORDER BY parked_at DESC) FILTER (WHERE event_id IS NOT NULL))[1:3] AS examples
         FROM dead_letters WHERE state = 'parked'
        GROUP BY queue, reason_group ORDER BY count(*) DESC, max(parked_at) DESC LIMIT $1`,
      [limit],
    );
    return res.rows.map((r) => ({
      queue: r.queue,
      reasonGroup: r.reason_group,
      count: r.count,
      firstSeen: r.first_seen.toISOString(),
      lastSeen: r.last_seen.toISOString(),
      examples: (r.examples ?? []).filter((e): e is string => e !== null),
    }));
  }

  /**
   * Messages, newest first, filtered by queue, reason group, state and event; keyset by id. The
   * ORDER BY names the table's column: a bare `id` would be the output's `id::text`, sorted as
   * text (9 … 3, 25 … 20, 2, 19 …), and paging by it skipped the newest.
   */
  async list(
    filter: {
      queue?: string;
      reasonGroup?: string;
      state?: State;
      eventId?: string;
      beforeId?: string;
    },
    limit: number,
  ): Promise<DeadLetter[]> {
    const res = await this.reads.query<Row>(
      `SELECT ${COLUMNS} FROM dead_letters
        WHERE ($1::text IS NULL OR queue = $1) AND ($2::text IS NULL OR reason_group = $2)
          AND ($3::text IS NULL OR state = $3) AND ($4::text IS NULL OR event_id = $4)
          AND ($5::bigint IS NULL OR id < $5)
        ORDER BY dead_letters.id DESC LIMIT $6`,
      [
        filter.queue ?? null,
        filter.reasonGroup ?? null,
        filter.state ?? null,
        filter.eventId ?? null,
        filter.beforeId ?? null,
        limit,
      ],
    );
    return res.rows.map(toDeadLetter);
  }

  /** The messages parked for these journeys (event ids or message keys), oldest first. */
  async ofEvents(eventIds: string[], limit = 20): Promise<ParkedMessage[]> {
    if (eventIds.length === 0) return [];
    const res = await this.reads.query<Row>(
      `SELECT * FROM (SELECT ${COLUMNS} FROM dead_letters WHERE event_id = ANY($1)
                      UNION
                      SELECT ${COLUMNS} FROM dead_letters WHERE message_key = ANY($1)) m
        ORDER BY id::bigint LIMIT $2`,
      [eventIds, limit],
    );
    return res.rows.map((r) => ({
      id: r.id,
      queue: r.queue,
      eventId: r.event_id,
      messageKey: r.message_key,
      from: r.deaths[0]?.queue ?? null,
      reason: r.reason,
      reasonSource: r.reason_source,
      deathReason: r.deaths[0]?.reason ?? null,
      state: r.state,
      stateAt: r.state_at.toISOString(),
      parkedAt: r.parked_at.toISOString(),
      replays: r.replays,
    }));
  }

  /**
   * The journeys of the dead letters of a reason group (any queue, any state) parked from
   * `sinceMs` to `untilMs`, newest first, after `cursor` (journeys/search.ts): their event id, or
   * their trace-context key where they carry none.
   */
  async journeysOfGroup(
    reasonGroup: string,
    sinceMs: number,
    untilMs: number,
    cursor: { lastUs: number; eventId: string } | null,
    limit: number,
  ): Promise<{ eventId: string; lastUs: number }[]> {
    const res = await this.reads.query<{ key: string; at: number }>(
      `SELECT key, at FROM (
         SELECT DISTINCT ON (key) key, at FROM (
           SELECT coalesce(event_id, message_key) AS key,
                  (extract(epoch FROM parked_at) * 1e6)::float8 AS at
             FROM dead_letters
            WHERE reason_group = $1 AND parked_at >= to_timestamp($2 / 1000.0)
              AND parked_at < to_timestamp($3 / 1000.0)
              AND coalesce(event_id, message_key) IS NOT NULL) d
         ORDER BY key, at DESC) k
        WHERE $4::float8 IS NULL OR (at, key) < ($4::float8, $5::text)
        ORDER BY at DESC, key DESC LIMIT $6`,
      [reasonGroup, sinceMs, untilMs, cursor?.lastUs ?? null, cursor?.eventId ?? '', limit],
    );
    return res.rows.map((r) => ({ eventId: r.key, lastUs: Math.round(r.at) }));
  }

  /** Ids of the parked messages of a group, oldest first. */
  async groupIds(queue: string, reasonGroup: string, limit: number): Promise<string[]> {
    const res = await this.pool.query<{ id: string }>(
      `SELECT id::text FROM dead_letters WHERE state = 'parked' AND queue = $1 AND reason_group = $2
        ORDER BY dead_letters.id LIMIT $3`,
      [queue, reasonGroup, limit],
    );
    return res.rows.map((r) => r.id);
  }

  /** What deciding a replay target needs, for the parked ones of these messages. */
  async replayFacts(ids: string[]): Promise<DeadLetter[]> {
    const res = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM dead_letters WHERE id = ANY($1::bigint[]) AND state = 'parked'`,
      [ids],
    );
    return res.rows.map(toDeadLetter);
  }

  async get(id: string): Promise<DeadLetter | null> {
    const res = await this.reads.query<Row>(`SELECT ${COLUMNS} FROM dead_letters WHERE id = $1`, [
      id,
    ]);
    return res.rows[0] ? toDeadLetter(res.rows[0]) : null;
  }

  async sealed(id: string): Promise<{ keyId: string; sealed: Buffer; queue: string } | null> {
    const res = await this.reads.query<{ key_id: string; sealed: Buffer; queue: string }>(
      'SELECT key_id, sealed, queue FROM dead_letters WHERE id = $1 AND sealed IS NOT NULL',
      [id],
    );
    const r = res.rows[0];
    return r ? { keyId: r.key_id, sealed: r.sealed, queue: r.queue } : null;
  }

  /**
   * Takes a parked message for a replay: only one caller gets it, however many ask at once (the
   * row's state changes under its lock). null: it is not parked (any more).
   */
  async claim(id: string): Promise<(DeadLetter & { keyId: string; sealed: Buffer }) | null> {
    const res = await this.pool.query<Row & { key_id: string; sealed: Buffer }>(
      `UPDATE dead_letters SET state = 'replaying', state_at = now()
        WHERE id = $1 AND state = 'parked'
        RETURNING ${COLUMNS}, key_id, sealed`,
      [id],
    );
    const r = res.rows[0];
    return r ? { ...toDeadLetter(r), keyId: r.key_id, sealed: r.sealed } : null;
  }

  /** The broker confirmed the replay. */
  async replayed(id: string): Promise<void> {
    await this.pool.query(
      `UPDATE dead_letters SET state = 'replayed', state_at = now(), replays = replays + 1,
              last_error = NULL WHERE id = $1 AND state = 'replaying'`,
      [id],
    );
  }

  /** The replay failed: parked again, with the error. */
  async replayFailed(id: string, error: string): Promise<void> {
    await this.pool.query(
      `UPDATE dead_letters SET state = 'parked', state_at = now(), last_error = $2
        WHERE id = $1 AND state = 'replaying'`,
      [id, error.slice(0, 500)],
    );
  }

  /** Discards parked (or unstorable) messages, their sealed content with them; returns those. */
  async discard(ids: string[]): Promise<DeadLetter[]> {
    const res = await this.pool.query<Row>(
      `UPDATE dead_letters SET state = 'discarded', state_at = now(), sealed = NULL
        WHERE id = ANY($1::bigint[]) AND state IN ('parked', 'unstorable') RETURNING ${COLUMNS}`,
      [ids],
    );
    return res.rows.map(toDeadLetter);
  }

  /** How many of these replays came back to a dead-letter queue since `sinceMs`. */
  async failedAgain(replayIds: string[], sinceMs: number): Promise<number> {
    const res = await this.pool.query<{ n: number }>(
      `SELECT count(DISTINCT replayed_from)::int AS n FROM dead_letters
        WHERE replayed_from = ANY($1::text[]) AND parked_at >= $2`,
      [replayIds, new Date(sinceMs)],
    );
    return res.rows[0]?.n ?? 0;
  }

  async audit(e: Omit<AuditEntry, 'id' | 'at'>): Promise<void> {
    await this.pool.query(
      `INSERT INTO dead_letter_audit (actor, actor_verified, action, dead_letter_id, event_id, queue,
         outcome, detail)
       VALUES ($1, $8, $2, $3, $4, $5, $6, $7)`,
      [
        e.actor,
        e.action,
        e.deadLetterId,
        e.eventId,
        e.queue,
        e.outcome,
        e.detail?.slice(0, 500) ?? null,
        e.actorVerified,
      ],
    );
  }

  async auditLog(filter: { beforeId?: string; eventId?: string }, limit: number) {
    const res = await this.reads.query<{
      id: string;
      at: Date;
      actor: string;
      actor_verified: boolean;
      action: string;
      dead_letter_id: string | null;
      event_id: string | null;
      queue: string | null;
      outcome: string;
      detail: string | null;
    }>(
      `SELECT id::text, at, actor, actor_verified, action, dead_letter_id::text, event_id, queue,
              outcome, detail
         FROM dead_letter_audit
        WHERE ($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR event_id = $2)
        ORDER BY dead_letter_audit.id DESC LIMIT $3`,
      [filter.beforeId ?? null, filter.eventId ?? null, limit],
    );
    return res.rows.map((r): AuditEntry => ({
      id: r.id,
      at: r.at.toISOString(),
      actor: r.actor,
      actorVerified: r.actor_verified,
      action: r.action,
      deadLetterId: r.dead_letter_id,
      eventId: r.event_id,
      queue: r.queue,
      outcome: r.outcome,
      detail: r.detail,
    }));
  }

  /** Parked now and the oldest parked time, per queue (for the gauges). */
  async parkedNow(): Promise<{ queue: string; count: number; oldest: Date }[]> {
    const res = await this.pool.query<{ queue: string; count: number; oldest: Date }>(
      `SELECT queue, count(*)::int AS count, min(parked_at) AS oldest
         FROM dead_letters WHERE state = 'parked' GROUP BY queue`,
    );
    return res.rows;
  }

  /**
   * Retention; the content of replayed messages, `keepContentHours` after the confirm; and
   * replays interrupted by a crash: a row left `replaying` for long goes back to parked with a
   * warning (it may have been published: its journey says).
   */
  async maintain(keepContentHours: number): Promise<{
    expired: number;
    interrupted: number;
    erased: number;
  }> {
    const expired = await this.pool.query('DELETE FROM dead_letters WHERE expires_at < now()');
    await this.pool.query(
      'DELETE FROM dead_letter_audit WHERE at < now() - make_interval(days => $1)',
      [this.retentionDays],
    );
    await this.pool.query(
      'DELETE FROM dead_letter_jobs WHERE started_at < now() - make_interval(days => $1)',
      [this.retentionDays],
    );
    const erased = await this.pool.query(
      `UPDATE dead_letters SET sealed = NULL
        WHERE state = 'replayed' AND sealed IS NOT NULL
          AND state_at < now() - make_interval(secs => $1)`,
      [keepContentHours * 3600],
    );
    const interrupted = await this.pool.query(
      `UPDATE dead_letters SET state = 'parked', state_at = now(),
              last_error = 'a replay was interrupted; it may have been published: check its journey'
        WHERE state = 'replaying' AND state_at < now() - interval '10 minutes'`,
    );
    return {
      expired: expired.rowCount ?? 0,
      interrupted: interrupted.rowCount ?? 0,
      erased: erased.rowCount ?? 0,
    };
  }
}
