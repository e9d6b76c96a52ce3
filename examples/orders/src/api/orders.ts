// SQL of the orders API. The order and its outbox row are written in one transaction.
import { randomUUID } from 'node:crypto';
import { withOutboxInsert } from '@acktrail/instrument';
import { inTransaction, type Pool } from '../db/pool.js';
import { ORDER_CREATED } from '../events.js';

export interface CreatedOrder {
  order_id: number;
  event_id: string;
  status: 'created';
  notification_status: 'pending';
}

export async function createOrder(
  pool: Pool,
  input: { customer_email: string; total: number },
): Promise<CreatedOrder> {
  return inTransaction(pool, async (db) => {
    const order = await db.query<{ id: number }>(
      'INSERT INTO orders (total, customer_email) VALUES ($1, $2) RETURNING id',
      [input.total, input.customer_email],
    );
    const orderId = order.rows[0]!.id;
    const eventId = randomUUID();
    // The trace context goes into the row, so the relay's publish continues this trace.
    await withOutboxInsert({ eventId, aggregateType: 'order', aggregateId: orderId }, (carrier) =>
      db.query(
        `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload, trace_context)
         VALUES ($1, $2, $3, 1, $4, $5)`,
        [eventId, ORDER_CREATED, orderId, { order_id: orderId }, carrier],
      ),
    );
    return {
      order_id: orderId,
      event_id: eventId,
      status: 'created',
      notification_status: 'pending',
    };
  });
}

export interface OrderView {
  order_id: number;
  status: string;
  total: number;
  notification_status: string;
  created_at: Date;
  events: { event_id: string; event_type: string; created_at: Date; published_at: Date | null }[];
  confirmation: { event_id: string; created_at: Date } | null;
}

export async function getOrder(pool: Pool, id: number): Promise<OrderView | null> {
  const order = await pool.query<Omit<OrderView, 'events' | 'confirmation'>>(
    `SELECT id AS order_id, status, total, notification_status, created_at
       FROM orders WHERE id = $1`,
    [id],
  );
  const row = order.rows[0];
  if (!row) return null;
  const [events, confirmation] = await Promise.all([
    pool.query<OrderView['events'][number]>(
      `SELECT id AS event_id, event_type, created_at, published_at
         FROM outbox_events WHERE aggregate_id = $1 ORDER BY created_at`,
      [id],
    ),
    pool.query<NonNullable<OrderView['confirmation']>>(
      'SELECT event_id, created_at FROM order_confirmations WHERE order_id = $1',
      [id],
    ),
  ]);
  return { ...row, events: events.rows, confirmation: confirmation.rows[0] ?? null };
}

/** Cancels an order whose notification is still pending; says why when it cannot. */
export async function cancelOrder(
  pool: Pool,
  id: number,
): Promise<'cancelled' | 'not_found' | 'too_late'> {
  const res = await pool.query<{ notification_status: string }>(
    `UPDATE orders SET status = 'cancelled'
      WHERE id = $1 AND notification_status = 'pending'
      RETURNING notification_status`,
    [id],
  );
  if (res.rowCount) return 'cancelled';
  const exists = await pool.query('SELECT 1 FROM orders WHERE id = $1', [id]);
  return exists.rowCount ? 'too_late' : 'not_found';
}
