// SQL of the worker: re-read the order, record an attempt and its result in one transaction.
import { inTransaction, type Pool } from '../db/pool.js';
import type { ProviderResult } from './provider-client.js';

export interface OrderState {
  id: number;
  status: 'created' | 'cancelled';
  notification_status: 'pending' | 'sent' | 'failed';
  customer_email: string;
  confirmed: boolean;
}

export async function loadOrder(pool: Pool, orderId: number): Promise<OrderState | null> {
  const res = await pool.query<OrderState>(
    `SELECT o.id, o.status, o.notification_status, o.customer_email,
            EXISTS (SELECT 1 FROM order_confirmations c WHERE c.order_id = o.id) AS confirmed
       FROM orders o WHERE o.id = $1`,
    [orderId],
  );
  return res.rows[0] ?? null;
}

export type Verdict = 'sent' | 'retry' | 'failed';

/** A failed order whose dead letter was replayed waits for its notification again. */
export async function reopenOrder(pool: Pool, orderId: number): Promise<void> {
  await pool.query(
    `UPDATE orders SET notification_status = 'pending' WHERE id = $1 AND notification_status = 'failed'`,
    [orderId],
  );
}

/**
 * Records attempt n+1 and, in the same transaction, its consequence: the confirmation row and
 * status 'sent' on success; status 'failed' on a permanent error or the last allowed attempt.
 */
export async function recordAttempt(
  pool: Pool,
  input: {
    eventId: string;
    orderId: number;
    provider: string;
    maxAttempts: number;
    /** A replayed dead letter's round starts here: only attempts since count against maxAttempts. */
    roundSince?: Date | null;
    result: ProviderResult;
  },
): Promise<{ attempt: number; inRound: number; verdict: Verdict }> {
  return inTransaction(pool, async (db) => {
    // The order row lock serialises concurrent copies of the same event.
    await db.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [input.orderId]);
    const prior = await db.query<{ n: number; round: number }>(
      `SELECT count(*)::int AS n,
              count(*) FILTER (WHERE $2::timestamptz IS NULL OR created_at >= $2)::int AS round
         FROM notification_attempts WHERE event_id = $1`,
      [input.eventId, input.roundSince ?? null],
    );
    const attempt = (prior.rows[0]?.n ?? 0) + 1;
    const inRound = (prior.rows[0]?.round ?? 0) + 1;
    const { outcome, statusCode, durationMs } = input.result;
    await db.query(
      `INSERT INTO notification_attempts (event_id, attempt, provider, outcome, status_code, duration)
       VALUES ($1, $2, $3, $4, $5, make_interval(secs => $6::double precision / 1000))`,
      [input.eventId, attempt, input.provider, outcome, statusCode, durationMs],
    );
    let verdict: Verdict;
    if (outcome === 'success' || outcome === 'idempotent_replay') {
      await db.query(
        'INSERT INTO order_confirmations (event_id, order_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [input.eventId, input.orderId],
      );
      await db.query(`UPDATE orders SET notification_status = 'sent' WHERE id = $1`, [
        input.orderId,
      ]);
      verdict = 'sent';
    } else if (outcome === 'permanent_error' || inRound >= input.maxAttempts) {
      await db.query(
        `UPDATE orders SET notification_status = 'failed' WHERE id = $1 AND notification_status = 'pending'`,
        [input.orderId],
      );
      verdict = 'failed';
    } else {
      verdict = 'retry';
    }
    return { attempt, inRound, verdict };
  });
}
