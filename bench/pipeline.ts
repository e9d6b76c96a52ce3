// Pipeline throughput, side by side in one run against the same broker and database:
//   bare     amqplib publish-with-confirm, batches of 100 (the ceiling for any relay)
//   relay    outbox rows committed at once -> all published_at set, by one relay process
//            (batch size 100, the default, and 500)
//   e2e      POST /orders (32 concurrent clients) -> every order's confirmation committed
// Prints messages/s (orders/s for e2e) per case, medians, and ratios against bare.
import amqp from 'amqplib';
import { randomUUID } from 'node:crypto';
import { waitFor } from '@acktrail/testing';
import { TestPipeline } from '@acktrail/orders-example/testing';
import { fmt, interleaved, median } from './lib.js';

const BARE_MESSAGES = 20_000;
const RELAY_ROWS = 20_000;
const E2E_ORDERS = 2_000;
const BATCH = 100;

async function bare(vhostUrl: string): Promise<number> {
  const conn = await amqp.connect(vhostUrl);
  const ch = await conn.createConfirmChannel();
  const { queue } = await ch.assertQueue('', { exclusive: true });
  const body = Buffer.from(
    JSON.stringify({
      event_id: randomUUID(),
      event_type: 'order.created',
      schema_version: 1,
      order_id: 1,
    }),
  );
  const started = performance.now();
  for (let sent = 0; sent < BARE_MESSAGES; sent += BATCH) {
    for (let i = 0; i < BATCH; i++) {
      ch.publish('', queue, body, {
        persistent: true,
        mandatory: true,
        messageId: randomUUID(),
        contentType: 'application/json',
      });
    }
    await ch.waitForConfirms();
  }
  const rate = BARE_MESSAGES / ((performance.now() - started) / 1000);
  await conn.close();
  return rate;
}

async function purgeWorkQueue(p: TestPipeline): Promise<void> {
  const conn = await amqp.connect(p.vhost.url);
  try {
    const ch = await conn.createChannel();
    await ch.purgeQueue('orders.confirmations');
  } finally {
    await conn.close();
  }
}

/** One relay process alone (no consumers compete for the two cores), with the given batch size. */
export async function relay(
  p: TestPipeline,
  batchSize: number,
  env: Record<string, string> = {},
): Promise<number> {
  await p.start('relay', { RELAY_BATCH_SIZE: String(batchSize), ...env }, 'bench-relay');
  await p.pool.query('TRUNCATE order_confirmations, notification_attempts, outbox_events, orders');
  await p.pool.query(
    `INSERT INTO orders (id, total, customer_email) VALUES (1, 1, 'bench@example.com')`,
  );
  // Commit all rows at once, then time until the relay has published every one.
  await p.pool.query(
    `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload)
     SELECT gen_random_uuid(), 'order.created', 1, 1, '{"order_id": 1}' FROM generate_series(1, $1)`,
    [RELAY_ROWS],
  );
  const started = performance.now();
  await waitFor(
    'all rows published',
    async () => {
      const r = await p.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL',
      );
      return r.rows[0]!.n === 0;
    },
    { timeoutMs: 120_000, intervalMs: 20 },
  );
  const rate = RELAY_ROWS / ((performance.now() - started) / 1000);
  await p.stop('bench-relay');
  await purgeWorkQueue(p);
  return rate;
}

/** API, relay and two workers, as in the demo. */
export async function e2e(p: TestPipeline, env: Record<string, string> = {}): Promise<number> {
  await p.pool.query('TRUNCATE order_confirmations, notification_attempts, outbox_events, orders');
  await Promise.all([
    p.start('relay', env, 'e2e-relay'),
    p.start('worker', env, 'worker-1'),
    p.start('worker', env, 'worker-2'),
  ]);
  const started = performance.now();
  let next = 0;
  const client = async () => {
    while (next < E2E_ORDERS) {
      next++;
      await p.createOrder({ customer_email: `b${next}@example.com`, total: 1 });
    }
  };
  await Promise.all(Array.from({ length: 32 }, client));
  await waitFor(
    'all orders confirmed',
    async () => {
      const r = await p.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM order_confirmations',
      );
      return r.rows[0]!.n === E2E_ORDERS;
    },
    { timeoutMs: 300_000, intervalMs: 20 },
  );
  const rate = E2E_ORDERS / ((performance.now() - started) / 1000);
  await Promise.all([p.stop('e2e-relay'), p.stop('worker-1'), p.stop('worker-2')]);
  return rate;
}

export async function runPipelineBench(rounds: number): Promise<void> {
  process.stderr.write(
    `pipeline bench: ${rounds} rounds of bare (${BARE_MESSAGES} msgs), relay (${RELAY_ROWS} rows), e2e (${E2E_ORDERS} orders)\n`,
  );
  const p = await TestPipeline.create({ RELAY_POLL_INTERVAL_MS: '20', WORKER_PREFETCH: '32' });
  try {
    await p.start('provider');
    await p.start('api');
    const r = await interleaved(rounds, {
      bare: () => bare(p.vhost.url),
      relay100: () => relay(p, 100),
      relay500: () => relay(p, 500),
      e2e: () => e2e(p),
    });
    const base = median(r.bare);
    console.log('\n## pipeline throughput (median of rounds)');
    console.log(`bare amqplib publish-with-confirm: ${fmt(base)} msgs/s`);
    for (const [name, batch] of [
      ['relay100', 100],
      ['relay500', 500],
    ] as const) {
      const rate = median(r[name]);
      console.log(
        `relay, batch ${batch} (outbox -> confirmed): ${fmt(rate)} msgs/s ratio to bare ${fmt(rate / base, 2)}`,
      );
    }
    console.log(
      `end to end (POST -> confirmation): ${fmt(median(r.e2e))} orders/s ratio to bare ${fmt(median(r.e2e) / base, 2)}`,
    );
  } finally {
    await p.close();
  }
}
