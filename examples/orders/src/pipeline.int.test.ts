// The happy path through real processes, RabbitMQ and PostgreSQL: every order gets exactly one
// confirmation and exactly one e-mail, and nothing is left in the outbox or the queues.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEAD_LETTER_QUEUE, WORK_QUEUE } from './broker/topology.js';
import { waitFor } from '@acktrail/testing';
import { TestPipeline } from './testing/index.js';

let p: TestPipeline;

before(async () => {
  p = await TestPipeline.create();
  await p.startAll();
});
after(() => p.close());

test('orders flow from POST to a single confirmation each', async () => {
  const created = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      p.createOrder({ customer_email: `u${i}@example.com`, total: i + 1 }),
    ),
  );
  const ids = created.map((c) => c.order_id);

  await waitFor('every order sent', async () => {
    const r = await p.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders WHERE id = ANY($1) AND notification_status = 'sent'`,
      [ids],
    );
    return r.rows[0]!.n === ids.length;
  });

  const confirmations = await p.pool.query<{ order_id: number; event_id: string }>(
    'SELECT order_id, event_id FROM order_confirmations WHERE order_id = ANY($1) ORDER BY order_id',
    [ids],
  );
  assert.deepEqual(
    confirmations.rows,
    created
      .map((c) => ({ order_id: c.order_id, event_id: c.event_id }))
      .sort((a, b) => a.order_id - b.order_id),
  );
  const outbox = await p.pool.query<{ unpublished: number }>(
    'SELECT count(*) FILTER (WHERE published_at IS NULL)::int AS unpublished FROM outbox_events',
  );
  assert.equal(outbox.rows[0]!.unpublished, 0);

  const attempts = await p.pool.query<{ outcome: string; attempt: number; status_code: number }>(
    'SELECT DISTINCT outcome, attempt, status_code FROM notification_attempts',
  );
  assert.deepEqual(attempts.rows, [{ outcome: 'success', attempt: 1, status_code: 202 }]);

  const stats = await p.providerStats();
  assert.equal(stats.sent, ids.length);

  await waitFor('work queue drained', async () => (await p.queue(WORK_QUEUE)).messageCount === 0);
  assert.equal((await p.queue(DEAD_LETTER_QUEUE)).messageCount, 0);
});

test('a cancelled order is acked without an e-mail', async () => {
  await p.stop('relay');
  const order = await p.createOrder({ customer_email: 'cancel@example.com', total: 5 });
  const cancel = await fetch(`${p.apiUrl}/orders/${order.order_id}/cancel`, { method: 'POST' });
  assert.equal(cancel.status, 200);
  await p.start('relay');
  await p
    .proc('worker')
    .waitForLog(
      (l) => l.event_id === order.event_id && l.msg === 'order cancelled; nothing to send',
      'the cancelled order skipped',
    );
  const stats = await p.providerStats(`order-confirmation:${order.order_id}`);
  assert.equal(stats.sent_for_key, 0);
  const r = await p.pool.query<{ notification_status: string }>(
    'SELECT notification_status FROM orders WHERE id = $1',
    [order.order_id],
  );
  assert.equal(r.rows[0]!.notification_status, 'pending');
});
