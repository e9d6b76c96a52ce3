// The pipeline's own rows for one event, read with the read-only role: its outbox row, its
// aggregate's row (without personal columns), its result row and its provider attempts. Each
// reader runs only when its config section names the table (config.ts: outbox, confirmations,
// provider); a reader that fails (a missing table or column, no permission, the database away)
// becomes a note in the journey, never an error of the lookup. Values are always parameters.
import type { ValidatedConfig } from '../config.js';
import { withClient } from '../db/checkout.js';
import { ident, type Pool } from '../db/pool.js';
import { errorMessage } from '../log.js';
import type { PipelineRows, PipelineRowsReader } from '../journeys/model/pipeline-rows.js';

/** A value the column's type cannot parse (an id of another shape) means "no such row". */
const INVALID_TEXT = '22P02';

/** SQLSTATE -> what it means for a reader. */
function noteOf(reader: string, table: string, err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === '42P01') return `${reader}: table ${table} not found`;
  if (code === '42703') return `${reader}: ${errorMessage(err)}`;
  if (code === '42501') return `${reader}: no permission to read ${table}`;
  return `${reader}: not read (${errorMessage(err)})`;
}

/**
 * Runs one query on a pooled connection. Not `pool.query`: that discards the connection on any
 * error, so every lookup of an id of another shape (a task id against a uuid column) would pay
 * for a new connection and its SCRAM handshake (about 70 ms here). A refused value leaves the
 * connection healthy; only other errors discard it.
 */
async function rows<R extends object>(pool: Pool, sql: string, params: unknown[]): Promise<R[]> {
  return withClient(
    pool,
    async (client) => (await client.query<R>(sql, params)).rows,
    (err) => (err as { code?: string }).code === INVALID_TEXT,
  ).catch((err: unknown) => {
    if ((err as { code?: string }).code === INVALID_TEXT) return [];
    throw err;
  });
}

type OutboxTable = NonNullable<ValidatedConfig['outbox']>['tables'][number];

export class PipelineReader implements PipelineRowsReader {
  constructor(
    private readonly pool: Pool,
    private readonly config: Pick<ValidatedConfig, 'outbox' | 'confirmations' | 'provider'>,
  ) {}

  /** Runs `read`; a failure is a note, and the reader's answer is `empty`. */
  private async tryRead<T>(
    notes: string[],
    reader: string,
    table: string,
    empty: T,
    read: () => Promise<T>,
  ): Promise<T> {
    try {
      return await read();
    } catch (err) {
      notes.push(noteOf(reader, table, err));
      return empty;
    }
  }

  /**
   * The pipeline's rows for an event. The reads by event id (outbox row, result, attempts) run at
   * once, beside whatever the caller does meanwhile (the journey store's read of the steps, which
   * `aggregateIdFromSpans` waits for); only the aggregate's row waits, for the aggregate id from
   * the outbox row or else from the spans (a promise that must not reject). Never rejects: a
   * failed read is a note.
   */
  async forEvent(
    eventId: string,
    aggregateIdFromSpans: Promise<string | null> | string | null,
  ): Promise<PipelineRows> {
    const notes: string[] = [];
    const { outbox, confirmations: c, provider: p } = this.config;
    const outboxRead = (async () => {
      for (const t of outbox?.tables ?? []) {
        const row = await this.tryRead(notes, 'outbox', t.table, null, () =>
          this.outboxRow(t, eventId),
        );
        if (row) return row;
      }
      return null;
    })();
    const [outboxRow, result, attempts] = await Promise.all([
      outboxRead,
      c
        ? this.tryRead(notes, 'results', c.results.table, null, async () => {
            const r = c.results;
            const [row] = await rows<{ created_at: Date }>(
              this.pool,
              `SELECT ${ident(r.createdAt)} AS created_at FROM ${ident(r.table)}
                WHERE ${ident(r.eventId)} = $1 LIMIT 1`,
              [eventId],
            );
            return row ? { createdAt: row.created_at } : null;
          })
        : Promise.resolve(null),
      p?.eventId
        ? this.tryRead(notes, 'attempts', p.table, [], () => this.attempts(p, eventId))
        : Promise.resolve([]),
    ]);
    const aggregateId = outboxRow?.aggregateId ?? (await aggregateIdFromSpans);
    const aggregate =
      c && aggregateId
        ? await this.tryRead(notes, 'aggregates', c.aggregates.table, null, async () => {
            const a = c.aggregates;
            const [row] = await rows<{ id: string; created_at: Date; status: string | null }>(
              this.pool,
              `SELECT ${ident(a.id)}::text AS id, ${ident(a.createdAt)} AS created_at,
                      ${a.status ? `${ident(a.status)}::text` : 'NULL::text'} AS status
                 FROM ${ident(a.table)} WHERE ${ident(a.id)} = $1`,
              [aggregateId],
            );
            return row ? { id: row.id, createdAt: row.created_at, status: row.status } : null;
          })
        : null;
    const aggregateRead =
      c !== undefined && aggregateId !== null && !notes.some((n) => n.startsWith('aggregates:'));
    return { outbox: outboxRow, aggregate, aggregateRead, result, attempts, notes };
  }

  private async outboxRow(t: OutboxTable, eventId: string): Promise<PipelineRows['outbox']> {
    const [row] = await rows<{
      event_type: string | null;
      aggregate_id: string | null;
      created_at: Date;
      published_at: Date | null;
      last_error: string | null;
    }>(
      this.pool,
      `SELECT ${t.eventType ? `${ident(t.eventType)}::text` : 'NULL::text'} AS event_type,
              ${t.aggregateId ? `${ident(t.aggregateId)}::text` : 'NULL::text'} AS aggregate_id,
              ${ident(t.createdAt)} AS created_at, ${ident(t.publishedAt)} AS published_at,
              ${t.lastError ? `${ident(t.lastError)}::text` : 'NULL::text'} AS last_error
         FROM ${ident(t.table)} WHERE ${ident(t.id)} = $1`,
      [eventId],
    );
    return row
      ? {
          eventType: row.event_type,
          aggregateId: row.aggregate_id,
          createdAt: row.created_at,
          publishedAt: row.published_at,
          lastError: row.last_error,
        }
      : null;
  }

  private async attempts(
    p: NonNullable<ValidatedConfig['provider']>,
    eventId: string,
  ): Promise<PipelineRows['attempts']> {
    const r = await rows<{
      outcome: string;
      status_code: number | null;
      created_at: Date;
      seconds: number;
    }>(
      this.pool,
      `SELECT ${ident(p.outcome)}::text AS outcome,
              ${p.statusCode ? `${ident(p.statusCode)}::int` : 'NULL::int'} AS status_code,
              ${ident(p.createdAt)} AS created_at,
              extract(epoch FROM ${ident(p.duration)})::float8 AS seconds
         FROM ${ident(p.table)} WHERE ${ident(p.eventId!)} = $1
        ORDER BY ${ident(p.createdAt)}, ${ident(p.id)} LIMIT 100`,
      [eventId],
    );
    return r.map((a, i) => ({
      attempt: i + 1,
      outcome: a.outcome,
      statusCode: a.status_code,
      createdAt: a.created_at,
      durationSeconds: a.seconds,
    }));
  }

  /** event ids of an aggregate's outbox rows (events that may have no span yet). */
  async eventsOfAggregate(aggregateId: string): Promise<{ eventId: string; createdAt: Date }[]> {
    const out: { eventId: string; createdAt: Date }[] = [];
    for (const t of this.config.outbox?.tables ?? []) {
      if (!t.aggregateId) continue;
      const r = await rows<{ id: string; created_at: Date }>(
        this.pool,
        `SELECT ${ident(t.id)}::text AS id, ${ident(t.createdAt)} AS created_at
           FROM ${ident(t.table)} WHERE ${ident(t.aggregateId)} = $1
          ORDER BY ${ident(t.createdAt)} DESC LIMIT 500`,
        [aggregateId],
      ).catch(() => []);
      out.push(...r.map((x) => ({ eventId: x.id, createdAt: x.created_at })));
    }
    return out;
  }

  /** Whether unpublished outbox rows can be listed (an outbox section is configured). */
  get hasOutbox(): boolean {
    return (this.config.outbox?.tables.length ?? 0) > 0;
  }

  /** Unpublished outbox rows older than `olderThanSeconds`, newest first, after the cursor. */
  async stuck(
    olderThanSeconds: number,
    since: Date,
    before: { at: Date; id: string } | null,
    limit: number,
  ): Promise<{ eventId: string; createdAt: Date; aggregateId: string | null }[]> {
    const t = this.config.outbox!.tables[0]!;
    const aggregate = t.aggregateId ? `${ident(t.aggregateId)}::text` : 'NULL::text';
    const r = await rows<{ id: string; created_at: Date; aggregate_id: string | null }>(
      this.pool,
      `SELECT ${ident(t.id)}::text AS id, ${ident(t.createdAt)} AS created_at,
              ${aggregate} AS aggregate_id
         FROM ${ident(t.table)}
        WHERE ${ident(t.publishedAt)} IS NULL
          AND ${ident(t.createdAt)} < now() - make_interval(secs => $1)
          AND ${ident(t.createdAt)} >= $2
          AND ($3::timestamptz IS NULL OR (${ident(t.createdAt)}, ${ident(t.id)}::text) < ($3, $4))
        ORDER BY ${ident(t.createdAt)} DESC, ${ident(t.id)}::text DESC LIMIT $5`,
      [olderThanSeconds, since, before?.at ?? null, before?.id ?? '', limit],
    );
    return r.map((x) => ({ eventId: x.id, createdAt: x.created_at, aggregateId: x.aggregate_id }));
  }
}
