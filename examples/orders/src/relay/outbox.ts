// SQL of the relay: claim a batch of unpublished rows, then mark them published or failed.
import type { PoolClient } from '../db/pool.js';

export interface OutboxRow {
  id: string;
  event_type: string;
  aggregate_id: number;
  schema_version: number;
  payload: Record<string, unknown>;
  trace_context: Record<string, string> | null;
}

/** Rows locked by another relay are skipped, so several relays can run at once. */
export async function claimBatch(db: PoolClient, limit: number): Promise<OutboxRow[]> {
  const res = await db.query<OutboxRow>(
    `SELECT id, event_type, aggregate_id, schema_version, payload, trace_context
       FROM outbox_events
      WHERE published_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= now())
      ORDER BY created_at
      LIMIT $1
      FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return res.rows;
}

export async function markPublished(db: PoolClient, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE outbox_events
        SET published_at = now(), publish_attempts = publish_attempts + 1,
            last_publish_error = NULL, next_attempt_at = NULL
      WHERE id = ANY($1::uuid[])`,
    [ids],
  );
}

export async function markFailed(
  db: PoolClient,
  failures: { id: string; error: string }[],
  retryAfterMs: number,
): Promise<void> {
  if (failures.length === 0) return;
  await db.query(
    `UPDATE outbox_events AS o
        SET publish_attempts = o.publish_attempts + 1,
            last_publish_error = f.error,
            next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
       FROM unnest($1::uuid[], $2::text[]) AS f(id, error)
      WHERE o.id = f.id`,
    [failures.map((f) => f.id), failures.map((f) => f.error), retryAfterMs],
  );
}
