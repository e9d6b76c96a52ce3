// The broker side of the dead-letter tests: a vhost of the test's own where every message
// published to `jobs` with key `job` expires on arrival in `jobs.work` and is dead-lettered by the
// broker itself (with its own x-death) through the fanout `jobs.dlx` into `jobs.dlq`, the
// dead-letter exchange set by a policy, as an operator sets it; and a store database of the test's
// own, with a client on it.
import amqp, { type Channel } from 'amqplib';
import pg from 'pg';
import {
  createTestDatabase,
  createTestVhost,
  management,
  waitFor,
  type TestDatabase,
  type TestVhost,
} from '@acktrail/testing';

export const DLQ = 'jobs.dlq';

export interface DeadLetterBench {
  vhost: TestVhost;
  store: TestDatabase;
  db: pg.Client;
  drop(): Promise<void>;
}

/** `more` declares what else a test needs on the same channel. */
export async function deadLetterBench(
  more: (ch: Channel) => Promise<void> = () => Promise.resolve(),
): Promise<DeadLetterBench> {
  const vhost = await createTestVhost();
  const store = await createTestDatabase('acktrail_test');
  const db = new pg.Client({ connectionString: store.url });
  await db.connect();
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createChannel();
  await ch.assertExchange('jobs', 'direct', { durable: true });
  await ch.assertExchange('jobs.dlx', 'fanout', { durable: true });
  await ch.assertQueue(DLQ, { durable: true });
  await ch.bindQueue(DLQ, 'jobs.dlx', '');
  await ch.assertQueue('jobs.work', { durable: true, arguments: { 'x-message-ttl': 0 } });
  await ch.bindQueue('jobs.work', 'jobs', 'job');
  await more(ch);
  await conn.close();
  const v = encodeURIComponent(vhost.name);
  await management(`/policies/${v}/jobs-dead-letters`, {
    method: 'PUT',
    body: JSON.stringify({
      pattern: '^jobs\\.work$',
      'apply-to': 'queues',
      definition: { 'dead-letter-exchange': 'jobs.dlx' },
    }),
  });
  await waitFor('the dead-letter policy on jobs.work', async () => {
    const q = (await management(`/queues/${v}/jobs.work`)) as { policy?: string };
    return q.policy === 'jobs-dead-letters';
  });
  return {
    vhost,
    store,
    db,
    drop: async () => {
      await db.end();
      await store.drop();
      await vhost.drop();
    },
  };
}
