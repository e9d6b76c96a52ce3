// The pipeline's own rows for one event, read with the read-only role: the outbox row, the order
// (without personal columns), the confirmation and the provider attempts. Column names come from
// the validated config; values are always parameters.
import type { ValidatedConfig } from '../../config.js';
import { ident, type Pool } from '../../db/pool.js';

export interface PipelineRows {
  outbox: {
    eventType: string | null;
    aggregateId: string;
    createdAt: Date;
    publishedAt: Date | null;
    lastError: string | null;
  } | null;
  order: { id: string; createdAt: Date; notificationStatus: string | null } | null;
  confirmation: { createdAt: Date } | null;
  attempts: {
    attempt: number;
    outcome: string;
    statusCode: number | null;
    createdAt: Date;
    durationSeconds: number;
  }[];
}

/** A value the column's type cannot parse (an id of another shape) means "no such row". */
const INVALID_TEXT = '22P02';

/**
 * Runs one query on a pooled connection. Not `pool.query`: that discards the connection on any
 * error, so every lookup of an id of another shape (a task id against a uuid column) would pay
 * for a new connection and its SCRAM handshake (about 70 ms here). A refused value leaves the
 * connection healthy; only other errors discard it.
 */
async function rows<R extends object>(pool: Pool, sql: string, params: unknown[]): Promise<R[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return (await client.query<R>(sql, params)).rows;
  } catch (err) {
    if ((err as { code?: string }).code === INVALID_TEXT) return [];
    broken = err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}

export class PipelineReader {
  constructor(
    private readonly pool: Pool,
    private readonly config: ValidatedConfig,
  ) {}

  async forEvent(eventId: string, aggregateId: string | null): Promise<PipelineRows> {
    const { outbox: o, confirmations: c, provider: p, journeys } = this.config;
    const t = o.tables[0]!;
    const j = journeys.pipeline;
    const outboxRows = await rows<{
      event_type: string | null;
      aggregate_id: string;
      created_at: Date;
      published_at: Date | null;
      last_error: string | null;
    }>(
      this.pool,
      `SELECT ${c.eventsTable ? 'event_type' : 'NULL::text'} AS event_type,
              ${ident(j.outboxAggregateId)}::text AS aggregate_id,
              ${ident(t.createdAt)} AS created_at, ${ident(t.publishedAt)} AS published_at,
              ${j.outboxLastError ? ident(j.outboxLastError) : 'NULL'}::text AS last_error
         FROM ${ident(t.table)} WHERE ${ident(t.id)} = $1`,
      [eventId],
    );
    const outboxRow = outboxRows[0];
    const orderId = outboxRow?.aggregate_id ?? aggregateId;
    const [order, confirmation, attempts] = await Promise.all([
      orderId
        ? rows<{ id: string; created_at: Date; status: string | null }>(
            this.pool,
            `SELECT ${ident(c.orderId)}::text AS id, ${ident(c.orderCreatedAt)} AS created_at,
                    ${ident(c.statusColumn)}::text AS status
               FROM ${ident(c.ordersTable)} WHERE ${ident(c.orderId)} = $1`,
            [orderId],
          )
        : Promise.resolve([]),
      rows<{ created_at: Date }>(
        this.pool,
        `SELECT ${ident(c.confirmationCreatedAt)} AS created_at FROM ${ident(c.confirmationsTable)}
          WHERE ${ident(c.confirmationEventId)} = $1`,
        [eventId],
      ),
      rows<{ outcome: string; status_code: number | null; created_at: Date; seconds: number }>(
        this.pool,
        `SELECT ${ident(p.outcome)}::text AS outcome,
                ${j.attemptsStatusCode ? ident(j.attemptsStatusCode) : 'NULL'}::int AS status_code,
                ${ident(p.createdAt)} AS created_at,
                extract(epoch FROM ${ident(p.duration)})::float8 AS seconds
           FROM ${ident(p.table)} WHERE ${ident(j.attemptsEventId)} = $1
          ORDER BY ${ident(p.createdAt)}, ${ident(p.id)} LIMIT 100`,
        [eventId],
      ),
    ]);
    const orderRow = order[0];
    return {
      outbox: outboxRow
        ? {
            eventType: outboxRow.event_type,
            aggregateId: outboxRow.aggregate_id,
            createdAt: outboxRow.created_at,
            publishedAt: outboxRow.published_at,
            lastError: outboxRow.last_error,
          }
        : null,
      order: orderRow
        ? { id: orderRow.id, createdAt: orderRow.created_at, notificationStatus: orderRow.status }
        : null,
      confirmation: confirmation[0] ? { createdAt: confirmation[0].created_at } : null,
      attempts: attempts.map((a, i) => ({
        attempt: i + 1,
        outcome: a.outcome,
        statusCode: a.status_code,
        createdAt: a.created_at,
        durationSeconds: a.seconds,
      })),
    };
  }

  /** event ids of an aggregate's outbox rows (events that may have no span yet). */
  async eventsOfAggregate(aggregateId: string): Promise<{ eventId: string; createdAt: Date }[]> {
    const t = this.config.outbox.tables[0]!;
    const r = await rows<{ id: string; created_at: Date }>(
      this.pool,
      `SELECT ${ident(t.id)}::text AS id, ${ident(t.createdAt)} AS created_at
         FROM ${ident(t.table)} WHERE ${ident(this.config.journeys.pipeline.outboxAggregateId)} = $1
        ORDER BY ${ident(t.createdAt)} DESC LIMIT 500`,
      [aggregateId],
    );
    return r.map((x) => ({ eventId: x.id, createdAt: x.created_at }));
  }

  /** Unpublished outbox rows older than `olderThanSeconds`, newest first, after the cursor. */
  async stuck(
    olderThanSeconds: number,
    since: Date,
    before: { at: Date; id: string } | null,
    limit: number,
  ): Promise<{ eventId: string; createdAt: Date }[]> {
    const t = this.config.outbox.tables[0]!;
    const r = await rows<{ id: string; created_at: Date }>(
      this.pool,
      `SELECT ${ident(t.id)}::text AS id, ${ident(t.createdAt)} AS created_at
         FROM ${ident(t.table)}
        WHERE ${ident(t.publishedAt)} IS NULL
          AND ${ident(t.createdAt)} < now() - make_interval(secs => $1)
          AND ${ident(t.createdAt)} >= $2
          AND ($3::timestamptz IS NULL OR (${ident(t.createdAt)}, ${ident(t.id)}::text) < ($3, $4))
        ORDER BY ${ident(t.createdAt)} DESC, ${ident(t.id)}::text DESC LIMIT $5`,
      [olderThanSeconds, since, before?.at ?? null, before?.id ?? '', limit],
    );
    return r.map((x) => ({ eventId: x.id, createdAt: x.created_at }));
  }
}
