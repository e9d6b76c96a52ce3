// Failures 1-6 and 8 of the design brief, injected into the real pipeline, and the invariants
// the seed promises: no order without its outbox row, exactly one confirmation per order, one
// e-mail per idempotency key, nothing lost, poison ends in the DLQ with its reason.
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import amqp from 'amqplib';
import {
  DEAD_LETTER_QUEUE,
  EXCHANGE,
  HEADERS,
  ROUTING_KEY,
  WORK_QUEUE,
} from '../broker/topology.js';
import { ADMIN_DATABASE_URL, waitFor } from '@acktrail/testing';
import { TestPipeline } from '../testing/index.js';
import { dropDatabase, restoreDatabase, snapshotDatabase } from './restore.js';

let p: TestPipeline | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

async function statusOf(pipeline: TestPipeline, orderId: number): Promise<string | undefined> {
  const r = await pipeline.pool.query<{ notification_status: string }>(
    'SELECT notification_status FROM orders WHERE id = $1',
    [orderId],
  );
  return r.rows[0]?.notification_status;
}

const sent = (pipeline: TestPipeline, orderId: number) =>
  waitFor(`order ${orderId} sent`, async () => (await statusOf(pipeline, orderId)) === 'sent');

async function confirmationsFor(pipeline: TestPipeline, orderId: number): Promise<number> {
  const r = await pipeline.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM order_confirmations WHERE order_id = $1',
    [orderId],
  );
  return r.rows[0]!.n;
}

async function publishedAt(pipeline: TestPipeline, eventId: string): Promise<Date | null> {
  const r = await pipeline.pool.query<{ published_at: Date | null }>(
    'SELECT published_at FROM outbox_events WHERE id = $1',
    [eventId],
  );
  return r.rows[0]!.published_at;
}

async function attempts(pipeline: TestPipeline, eventId: string) {
  const r = await pipeline.pool.query<{
    attempt: number;
    outcome: string;
    status_code: number | null;
  }>(
    'SELECT attempt, outcome, status_code FROM notification_attempts WHERE event_id = $1 ORDER BY attempt',
    [eventId],
  );
  return r.rows;
}

describe('failure 1: relay down after orders are committed', () => {
  test('events wait in the outbox and are all delivered once the relay is back', async () => {
    p = await TestPipeline.create();
    await p.start('provider');
    await p.start('api');
    await p.start('worker');
    const orders = await Promise.all([1, 2, 3].map(() => p!.createOrder()));
    const backlog = await p.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL',
    );
    assert.equal(backlog.rows[0]!.n, 3);
    const relayStart = (await p.pool.query<{ now: Date }>('SELECT now()')).rows[0]!.now;

    await p.start('relay');
    for (const o of orders) await sent(p, o.order_id);
    const rows = await p.pool.query<{ created_at: Date; published_at: Date }>(
      'SELECT created_at, published_at FROM outbox_events ORDER BY created_at',
    );
    for (const r of rows.rows) {
      assert.ok(r.published_at >= relayStart, 'published only after the relay came back');
      assert.ok(r.created_at < relayStart, 'created while the relay was down');
    }
    for (const o of orders) assert.equal(await confirmationsFor(p, o.order_id), 1);
  });
});

describe('failure 2: relay exits after the confirm, before published_at', () => {
  test('the event is published twice, the second copy is recognised, one confirmation', async () => {
    p = await TestPipeline.create();
    await p.start('provider');
    await p.start('api');
    await p.start('worker');
    await p.start('relay', { FAULT_RELAY_EXIT_AFTER_CONFIRM: '1' });
    const order = await p.createOrder();
    assert.equal(await p.proc('relay').exited, 1);
    await sent(p, order.order_id);
    assert.equal(
      await publishedAt(p, order.event_id),
      null,
      'the confirm never reached the database',
    );

    await p.start('relay', {}, 'relay2');
    await p
      .proc('worker')
      .waitForLog(
        (l) => l.event_id === order.event_id && l.msg === 'already done; acking the duplicate',
        'the duplicate recognised',
      );
    await waitFor('published_at set', async () => (await publishedAt(p!, order.event_id)) !== null);
    assert.equal(await confirmationsFor(p, order.order_id), 1);
    assert.equal((await p.providerStats(`order-confirmation:${order.order_id}`)).sent_for_key, 1);
  });
});

describe('failure 3: worker exits after the commit, before the ack', () => {
  test('the redelivery is recognised as already done and acked', async () => {
    p = await TestPipeline.create();
    await p.start('provider');
    await p.start('api');
    await p.start('relay');
    await p.start('worker', { FAULT_WORKER_EXIT_AFTER_COMMIT: '1' });
    const order = await p.createOrder();
    assert.equal(await p.proc('worker').exited, 1);
    assert.equal(await statusOf(p, order.order_id), 'sent');

    const again = await p.start('worker', {}, 'worker2');
    await again.waitForLog(
      (l) =>
        l.event_id === order.event_id &&
        l.redelivered === true &&
        l.msg === 'already done; acking the duplicate',
      'the redelivery acked as already done',
    );
    await waitFor('work queue empty', async () => (await p!.queue(WORK_QUEUE)).messageCount === 0);
    assert.equal(await confirmationsFor(p, order.order_id), 1);
    assert.equal((await attempts(p, order.event_id)).length, 1);
    assert.equal((await p.providerStats(`order-confirmation:${order.order_id}`)).sent_for_key, 1);
  });
});

describe('failure 4: worker exits after the provider call, before recording it', () => {
  test('the provider is called again with the same key and answers with a replay', async () => {
    p = await TestPipeline.create();
    await p.start('provider');
    await p.start('api');
    await p.start('relay');
    await p.start('worker', { FAULT_WORKER_EXIT_AFTER_PROVIDER_CALL: '1' });
    const order = await p.createOrder();
    assert.equal(await p.proc('worker').exited, 1);
    const key = `order-confirmation:${order.order_id}`;
    assert.equal((await p.providerStats(key)).sent_for_key, 1);
    assert.deepEqual(await attempts(p, order.event_id), []);

    await p.start('worker', {}, 'worker2');
    await sent(p, order.order_id);
    assert.deepEqual(await attempts(p, order.event_id), [
      { attempt: 1, outcome: 'idempotent_replay', status_code: 202 },
    ]);
    const stats = await p.providerStats(key);
    assert.equal(stats.sent_for_key, 1, 'one e-mail despite two calls');
    assert.equal(stats.requests, 2);
    assert.equal(await confirmationsFor(p, order.order_id), 1);
  });
});

describe('failure 5: wrong routing key', () => {
  test('the mandatory publish comes back and the row stays unpublished until fixed', async () => {
    p = await TestPipeline.create();
    await p.start('provider');
    await p.start('api');
    await p.start('worker');
    await p.start('relay', { FAULT_RELAY_ROUTING_KEY: 'order.craeted' });
    const order = await p.createOrder();
    await p
      .proc('relay')
      .waitForLog((l) => l.msg === 'publish failed; rows stay unpublished', 'the return logged');
    const row = await waitFor('the failure recorded on the row', async () => {
      const r = await p!.pool.query<{
        published_at: Date | null;
        publish_attempts: number;
        last_publish_error: string;
      }>(
        'SELECT published_at, publish_attempts, last_publish_error FROM outbox_events WHERE id = $1',
        [order.event_id],
      );
      return r.rows[0]!.publish_attempts > 0 ? r.rows[0] : undefined;
    });
    assert.equal(row.published_at, null);
    assert.match(row.last_publish_error, /^unroutable: NO_ROUTE/);
    assert.equal((await p.queue(WORK_QUEUE)).messageCount, 0);
    assert.equal(await statusOf(p, order.order_id), 'pending');

    await p.stop('relay');
    await p.start('relay');
    await sent(p, order.order_id);
    assert.equal(await confirmationsFor(p, order.order_id), 1);
  });
});

describe('failure 6: poison messages and a provider that keeps failing', () => {
  test('a rejected address is dead-lettered with its reason after one attempt', async () => {
    p = await TestPipeline.create({ PROVIDER_REJECT_ADDRESSES: '*@invalid.example' });
    await p.startAll();
    const order = await p.createOrder({ customer_email: 'x@invalid.example', total: 1 });
    await waitFor('status failed', async () => (await statusOf(p!, order.order_id)) === 'failed');
    const dead = await waitFor('one message in the DLQ', async () => {
      const msgs = await p!.drain(DEAD_LETTER_QUEUE);
      return msgs.length ? msgs : undefined;
    });
    assert.equal(dead.length, 1);
    assert.equal(dead[0]!.messageId, order.event_id);
    assert.equal(dead[0]!.headers[HEADERS.deadLetterReason], 'provider 422: invalid address');
    assert.deepEqual(await attempts(p, order.event_id), [
      { attempt: 1, outcome: 'permanent_error', status_code: 422 },
    ]);
    assert.equal(await confirmationsFor(p, order.order_id), 0);
  });

  test('transient failures retry with growing delays, then dead-letter when attempts run out', async () => {
    p = await TestPipeline.create({ PROVIDER_FAILURE_RATE: '1', WORKER_MAX_ATTEMPTS: '4' });
    await p.startAll();
    const order = await p.createOrder();
    await waitFor('status failed', async () => (await statusOf(p!, order.order_id)) === 'failed');
    assert.deepEqual(
      (await attempts(p, order.event_id)).map((a) => [a.attempt, a.outcome, a.status_code]),
      [
        [1, 'transient_error', 503],
        [2, 'transient_error', 503],
        [3, 'transient_error', 503],
        [4, 'transient_error', 503],
      ],
    );
    const delays = p
      .proc('worker')
      .lines.filter((l) => l.msg === 'provider failed; retry scheduled')
      .map((l) => Number(l.delay_ms));
    assert.equal(delays.length, 3);
    assert.ok(
      delays[0]! < delays[1]! && delays[1]! < delays[2]!,
      `delays grow: ${delays.join(', ')}`,
    );
    const dead = await waitFor('the DLQ message', async () => {
      const msgs = await p!.drain(DEAD_LETTER_QUEUE);
      return msgs.length ? msgs : undefined;
    });
    assert.equal(
      dead[0]!.headers[HEADERS.deadLetterReason],
      'attempts exhausted (4): provider 503: temporarily unavailable',
    );
    assert.equal(dead[0]!.headers[HEADERS.attempt], 4);
  });

  test('an unreadable message goes to the DLQ and does not stop the others', async () => {
    p = await TestPipeline.create();
    await p.startAll();
    const conn = await amqp.connect(p.vhost.url);
    const ch = await conn.createConfirmChannel();
    ch.publish(EXCHANGE, ROUTING_KEY, Buffer.from('{"event_id": 42'), {
      messageId: 'poison-1',
      persistent: true,
    });
    await ch.waitForConfirms();
    await conn.close();
    const order = await p.createOrder();
    await sent(p, order.order_id);
    const dead = await waitFor('the poison message in the DLQ', async () => {
      const msgs = await p!.drain(DEAD_LETTER_QUEUE);
      return msgs.length ? msgs : undefined;
    });
    assert.equal(dead[0]!.messageId, 'poison-1');
    assert.equal(dead[0]!.headers[HEADERS.deadLetterReason], 'malformed message: body is not JSON');
  });
});

describe('failure 8: database restored to an earlier point', () => {
  test('deliveries for vanished orders are dead-lettered and re-published events are replays', async () => {
    p = await TestPipeline.create();
    const snapshot = `${p.db.name}_snap`;
    await p.startAll();
    const before = await p.createOrder();
    await sent(p, before.order_id);

    // C: committed but not yet published when the backup is taken.
    await p.stop('relay');
    const c = await p.createOrder();
    await snapshotDatabase(ADMIN_DATABASE_URL, p.db.name, snapshot);
    try {
      await p.start('relay');
      await sent(p, c.order_id);

      // B: created after the backup; its message waits in the queue while the worker is down.
      await p.stop('worker');
      const b = await p.createOrder();
      await waitFor('B queued', async () => (await p!.queue(WORK_QUEUE)).messageCount === 1);
      await p.stop('relay');
      await restoreDatabase(ADMIN_DATABASE_URL, p.db.name, snapshot);
      assert.equal(await statusOf(p, b.order_id), undefined, 'B is gone');
      assert.equal(await statusOf(p, c.order_id), 'pending', 'C is back to pending');

      await p.start('relay');
      await p.start('worker');
      await sent(p, c.order_id);
      const dead = await waitFor('B dead-lettered', async () => {
        const msgs = await p!.drain(DEAD_LETTER_QUEUE);
        return msgs.length ? msgs : undefined;
      });
      assert.deepEqual(
        dead.map((m) => [m.messageId, m.headers[HEADERS.deadLetterReason]]),
        [[b.event_id, 'order not found']],
      );
      assert.deepEqual(await attempts(p, c.event_id), [
        { attempt: 1, outcome: 'idempotent_replay', status_code: 202 },
      ]);
      assert.equal((await p.providerStats(`order-confirmation:${c.order_id}`)).sent_for_key, 1);
      assert.equal(await confirmationsFor(p, before.order_id), 1);
      assert.equal(await statusOf(p, before.order_id), 'sent');
    } finally {
      await dropDatabase(ADMIN_DATABASE_URL, snapshot);
    }
  });
});
