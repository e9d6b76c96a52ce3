// Nothing is lost across worker, relay and broker restarts, with two relays and two workers
// sharing the work: every order ends with one confirmation and one e-mail.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runLoad } from './loadgen/loadgen.js';
import { management, waitFor } from '@acktrail/testing';
import { TestPipeline } from './testing/index.js';

const run = promisify(execFile);
let p: TestPipeline;

before(async () => {
  p = await TestPipeline.create({ RELAY_BATCH_SIZE: '10' });
  await p.start('provider');
  await p.start('api');
  await Promise.all([
    p.start('relay', {}, 'relay-a'),
    p.start('relay', {}, 'relay-b'),
    p.start('worker', {}, 'worker-a'),
    p.start('worker', {}, 'worker-b'),
  ]);
});
after(() => p.close());

async function restartBroker(): Promise<void> {
  await run('rabbitmqctl', ['-q', 'stop_app']);
  await run('rabbitmqctl', ['-q', 'start_app']);
  await run('rabbitmqctl', ['-q', 'await_startup']);
  await waitFor('the management API back', () => management('/overview'));
}

test('kill a worker and a relay, restart the broker: every order still confirmed exactly once', async () => {
  const load = runLoad({ apiUrl: p.apiUrl, rate: 40, durationS: 6, invalidRatio: 0 });

  await waitFor('some orders sent', async () => {
    const r = await p.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders WHERE notification_status = 'sent'`,
    );
    return r.rows[0]!.n >= 20;
  });
  await p.proc('worker-a').kill();
  await p.proc('relay-a').kill();
  await restartBroker();
  const survivor = p.proc('worker-b');
  await waitFor('worker-b reconnected', () => {
    const lost = survivor.lines.findIndex(
      (l) => l.msg === 'lost the RabbitMQ connection; reconnecting',
    );
    return lost >= 0 && survivor.lines.slice(lost).some((l) => l.msg === 'connected to RabbitMQ');
  });
  await p.start('worker', {}, 'worker-c');
  await p.start('relay', {}, 'relay-c');

  const done = await load;
  assert.equal(done.errors, 0);
  assert.ok(done.created > 100, `orders created: ${done.created}`);

  await waitFor(
    'every order sent',
    async () => {
      const r = await p.pool.query<{ pending: number }>(
        `SELECT count(*) FILTER (WHERE notification_status <> 'sent')::int AS pending FROM orders`,
      );
      return r.rows[0]!.pending === 0;
    },
    // An order whose delivery failed around the restart waits out its retry delays (5 s doubling,
    // at most 60 s each, with jitter): a bound past two of them.
    { timeoutMs: 150_000 },
  ).catch(async (err: unknown) => {
    throw new Error(`${(err as Error).message}\n${await unsentReport()}`, { cause: err });
  });
  const r = await p.pool.query<{
    orders: number;
    without_outbox: number;
    confirmations: number;
    unpublished: number;
  }>(
    `SELECT (SELECT count(*) FROM orders)::int AS orders,
            (SELECT count(*) FROM orders o WHERE NOT EXISTS
               (SELECT 1 FROM outbox_events e WHERE e.aggregate_id = o.id))::int AS without_outbox,
            (SELECT count(*) FROM order_confirmations)::int AS confirmations,
            (SELECT count(*) FROM outbox_events WHERE published_at IS NULL)::int AS unpublished`,
  );
  const row = r.rows[0]!;
  assert.equal(row.orders, done.created);
  assert.equal(row.without_outbox, 0, 'no order without its outbox row');
  assert.equal(row.confirmations, row.orders, 'one confirmation per order');
  assert.equal(row.unpublished, 0);
  assert.equal((await p.providerStats()).sent, row.orders, 'one e-mail per order');
});

/** Where the orders that never got their e-mail are, and what the processes warned about. */
async function unsentReport(): Promise<string> {
  const orders = await p.pool.query(
    `SELECT o.id, o.notification_status, e.id AS event_id, e.published_at, e.publish_attempts, e.last_publish_error,
            (SELECT count(*)::int FROM notification_attempts a WHERE a.event_id = e.id) AS tries
       FROM orders o LEFT JOIN outbox_events e ON e.aggregate_id = o.id
      WHERE o.notification_status <> 'sent' ORDER BY o.id LIMIT 20`,
  );
  const queues = await management(
    `/queues/${encodeURIComponent(p.vhost.name)}?columns=name,messages_ready,messages_unacknowledged,consumers`,
  ).catch((err: unknown) => (err as Error).message);
  const warnings = [...p.procs].flatMap(([name, proc]) =>
    proc.lines
      .filter((l) => (l.level ?? 0) >= 40)
      .slice(-15)
      .map((l) => `${name}: ${JSON.stringify(l)}`),
  );
  return [
    `unsent orders: ${JSON.stringify(orders.rows)}`,
    `queues: ${JSON.stringify(queues)}`,
    ...warnings,
  ].join('\n');
}
