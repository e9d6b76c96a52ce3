// Failures 1, 5, 6 and 7 of the design brief, injected into the real reference pipeline while the
// exporter watches it: the metrics move as the brief's table says. The work queue's health status
// follows: STOP with its consumers stopped, STALL behind a provider that hangs, OK otherwise.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@acktrail/testing';
import { TestPipeline } from '@acktrail/orders-example/testing';
import {
  createReadOnlyRole,
  ordersConfig,
  TestExporter,
  type Scrape,
} from '@acktrail/exporter/testing';

let p: TestPipeline;
let exporter: TestExporter;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;

const OUTBOX = { table: 'outbox_events' };
const TOKEN = 'failures-test-token-0123456789';
const queue = (name: string) => ({ vhost: p.vhost.name, queue: name });

before(async () => {
  p = await TestPipeline.create({ PROVIDER_REJECT_ADDRESSES: '*@invalid.example' });
  role = await createReadOnlyRole(p.db.name);
  exporter = await TestExporter.start(
    { DATABASE_URL: role.url, ACKTRAIL_API_TOKEN: TOKEN },
    ordersConfig({
      rabbitmq: { vhosts: [p.vhost.name], statsIntervalSeconds: 1, statusWindowSeconds: 5 },
      aggregateCounts: { minIntervalSeconds: 0.001 },
    }),
  );
  await p.start('provider');
  await p.start('api');
  await p.start('worker');
});

after(async () => {
  await exporter.close();
  await p.close();
  await role.drop();
});

/** The status whose acktrail_queue_status series is 1 (undefined before the first refresh). */
const statusOf = (s: Scrape, name: string) =>
  s
    .samples('acktrail_queue_status')
    .find((x) => x.labels.queue === name && x.labels.vhost === p.vhost.name && x.value === 1)
    ?.labels.status;

interface QueueRow {
  queue: string;
  consumers: number;
  status: { status: string; rule: string } | null;
}

/** The queue as GET /api/queues gives it. */
async function queueRow(name: string): Promise<QueueRow> {
  const res = await fetch(`${exporter.url}/api/queues?role=work`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(res.status, 200);
  const { queues } = (await res.json()) as { queues: QueueRow[] };
  return queues.find((q) => q.queue === name)!;
}

/** Scrapes until `check` holds for a scrape; returns that scrape. */
const until = (what: string, check: (s: Scrape) => boolean, timeoutMs = 60_000) =>
  waitFor(
    what,
    async () => {
      const s = await exporter.scrape();
      return check(s) ? s : undefined;
    },
    { timeoutMs },
  );

/**
 * STALL needs the queue observed for a whole window (statusWindowSeconds, 5 s here) and two stats
 * refreshes' ack counts a window apart; a refresh comes at most every max(statsIntervalSeconds,
 * 100 x its last run) and at least every ten statsIntervalSeconds: 10 s here.
 */
const WINDOW_BOUND_MS = 120_000;

test('failure 1: relay down: outbox backlog and oldest age rise, then drain after the restart', async () => {
  await Promise.all([1, 2, 3].map(() => p.createOrder()));
  const first = await until(
    'backlog of 3',
    (s) => s.value('acktrail_outbox_unpublished_events', OUTBOX) === 3,
  );
  const age1 = first.value('acktrail_outbox_oldest_unpublished_age_seconds', OUTBOX)!;
  await until(
    'the oldest age rising',
    (s) => s.value('acktrail_outbox_oldest_unpublished_age_seconds', OUTBOX)! > age1,
  );
  await p.start('relay');
  const drained = await until(
    'the backlog drained',
    (s) =>
      s.value('acktrail_outbox_unpublished_events', OUTBOX) === 0 &&
      s.value('acktrail_outbox_published_events_total', OUTBOX) === 3,
  );
  assert.equal(drained.value('acktrail_outbox_oldest_unpublished_age_seconds', OUTBOX), 0);
});

test('failure 7: consumers stopped: ready grows, consumers 0, head age grows, the API stays healthy', async () => {
  // Start from an idle pipeline: every earlier order confirmed, nothing queued or in flight.
  await waitFor('earlier orders confirmed', async () => {
    const r = await p.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders WHERE notification_status = 'pending'`,
    );
    return r.rows[0]!.n === 0;
  });
  await until(
    'the work queue idle',
    (s) =>
      s.value('acktrail_queue_messages_ready', queue('orders.confirmations')) === 0 &&
      s.value('acktrail_queue_messages_unacked', queue('orders.confirmations')) === 0,
  );
  await p.stop('worker');
  await until(
    'no consumer on the work queue',
    (s) => s.value('acktrail_queue_consumers', queue('orders.confirmations')) === 0,
  );
  for (let i = 0; i < 4; i++) await p.createOrder();
  const s = await until(
    '4 ready on the work queue',
    (x) => x.value('acktrail_queue_messages_ready', queue('orders.confirmations')) === 4,
  );
  assert.equal(
    s
      .samples('acktrail_queue_messages_ready')
      .find((x) => x.labels.queue === 'orders.confirmations')?.labels.role,
    'work',
  );
  assert.equal((await fetch(`${p.apiUrl}/healthz`)).status, 200);
  assert.ok(s.value('acktrail_oldest_pending_confirmation_age_seconds')! > 0);
  // The head's timestamp (seconds) comes with the stats refresh; its age then grows.
  const head = await until(
    'a head age on the work queue',
    (x) => x.value('acktrail_queue_head_age_seconds', queue('orders.confirmations'))! > 0,
  );
  const age = head.value('acktrail_queue_head_age_seconds', queue('orders.confirmations'))!;
  await until(
    'the head age growing',
    (x) => x.value('acktrail_queue_head_age_seconds', queue('orders.confirmations'))! > age,
  );
  await until('status STOP', (x) => statusOf(x, 'orders.confirmations') === 'stop');
  const row = await queueRow('orders.confirmations');
  assert.equal(row.status?.rule, 'no consumer while 4 messages wait');
  assert.equal(row.consumers, 0);

  await p.start('worker');
  await until(
    'the queue drained by the new consumer',
    (x) =>
      x.value('acktrail_queue_messages_ready', queue('orders.confirmations')) === 0 &&
      x.value('acktrail_queue_consumers', queue('orders.confirmations')) === 1 &&
      x.value('acktrail_queue_head_age_seconds', queue('orders.confirmations')) === 0,
  );
});

test('a provider that hangs: the worker holds its deliveries, nothing is acked: STALL, then OK', async () => {
  // The worker waits on the provider far longer than the test: its prefetch fills and stays.
  await p.stop('worker');
  await p.providerSettings({ timeoutRate: 1, hangMs: 600_000 });
  await p.start('worker', { WORKER_PREFETCH: '2', WORKER_PROVIDER_TIMEOUT_MS: '600000' });
  try {
    for (let i = 0; i < 4; i++) await p.createOrder();
    const stalled = await until(
      'status STALL',
      (x) =>
        statusOf(x, 'orders.confirmations') === 'stall' &&
        x.value('acktrail_queue_messages_unacked', queue('orders.confirmations')) === 2,
      WINDOW_BOUND_MS,
    );
    assert.equal(stalled.value('acktrail_queue_consumers', queue('orders.confirmations')), 1);
    assert.match(
      (await queueRow('orders.confirmations')).status?.rule ?? '',
      /^2 messages ready and 1 consumer attached, no ack in \d+ s/,
    );
  } finally {
    // The provider answers again; the hung worker is replaced (its deliveries come back).
    await p.providerSettings({ timeoutRate: 0 });
    await p.stop('worker');
    await p.start('worker');
  }
  await until(
    'status OK, the queue drained',
    (x) =>
      statusOf(x, 'orders.confirmations') === 'ok' &&
      x.value('acktrail_queue_messages_ready', queue('orders.confirmations')) === 0,
  );
});

test('failure 5: wrong routing key: the row stays unpublished and its age rises', async () => {
  await p.stop('relay');
  await p.start('relay', { FAULT_RELAY_ROUTING_KEY: 'order.craeted' }, 'bad-relay');
  await p.createOrder();
  const first = await until(
    'one unpublished row',
    (s) => s.value('acktrail_outbox_unpublished_events', OUTBOX) === 1,
  );
  const age1 = first.value('acktrail_outbox_oldest_unpublished_age_seconds', OUTBOX)!;
  await p
    .proc('bad-relay')
    .waitForLog((l) => l.msg === 'publish failed; rows stay unpublished', 'the return');
  await until(
    'its age rising',
    (s) => s.value('acktrail_outbox_oldest_unpublished_age_seconds', OUTBOX)! > age1,
  );
  assert.equal(
    (await exporter.scrape()).value('acktrail_queue_messages_ready', queue('orders.confirmations')),
    0,
  );
  await p.stop('bad-relay');
  await p.start('relay');
  await until(
    'published after the fix',
    (s) => s.value('acktrail_outbox_unpublished_events', OUTBOX) === 0,
  );
});

test('failure 6: a poison order ends in the DLQ, status failed, a permanent provider error', async () => {
  await p.createOrder({ customer_email: 'nobody@invalid.example', total: 3 });
  const s = await until(
    'the DLQ holding it',
    (x) => x.value('acktrail_queue_messages_ready', queue('orders.confirmations.dlq')) === 1,
  );
  assert.equal(
    s
      .samples('acktrail_queue_messages_ready')
      .find((x) => x.labels.queue === 'orders.confirmations.dlq')?.labels.role,
    'dead_letter',
  );
  await until(
    'failed notification and the permanent error counted',
    (x) =>
      x.value('acktrail_aggregates', { status: 'failed' }) === 1 &&
      x.value('acktrail_provider_requests_total', {
        provider: 'mailer',
        outcome: 'permanent_error',
      }) === 1,
  );
});
