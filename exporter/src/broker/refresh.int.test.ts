// The topology's refresh against this machine's RabbitMQ: a queue declared after the last refresh
// is learnt by an early one as soon as spans name it, one refresh for however many writes ask at
// once; a name the broker does not have costs one refresh, not one per write; a broker that does
// not answer is the part's health, and nobody waits past their bound.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import amqp from 'amqplib';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import {
  RABBITMQ_MANAGEMENT_URL,
  createTestVhost,
  freePort,
  waitFor,
  type TestVhost,
} from '@acktrail/testing';
import { ManagementApi } from '../collectors/rabbitmq/source/http.js';
import { Health } from '../runtime/health.js';
import { EARLY_PER_SENDER, PART, TopologyRefresh, type BrokerReads } from './refresh.js';

const log = pino({ level: 'silent' });
let vhost: TestVhost;

/** The management API, counting the queue listings it answers. */
function counted(api: ManagementApi): BrokerReads & { listings: number } {
  const reads = {
    listings: 0,
    getJson: <T>(path: string, signal: AbortSignal) => {
      if (path.startsWith('/api/queues')) reads.listings++;
      return api.getJson<T>(path, signal);
    },
  };
  return reads;
}

function refresher(reads: BrokerReads, health = new Health(new Registry(), log)) {
  return new TopologyRefresh(
    { vhosts: [vhost.name], roles: [], statsIntervalSeconds: 3600, timeoutSeconds: 5 },
    reads,
    health,
    log,
  );
}

before(async () => {
  vhost = await createTestVhost('acktrail_refresh');
});
after(async () => {
  await vhost.drop();
});

test('a queue declared after the last refresh is learnt when spans name it, once for all who ask', async () => {
  const reads = counted(new ManagementApi(RABBITMQ_MANAGEMENT_URL));
  const topology = refresher(reads);
  topology.start();
  try {
    await topology.untilLoaded(10_000);
    assert.equal(topology.current.version, 1);
    const conn = await amqp.connect(vhost.url);
    const ch = await conn.createChannel();
    await ch.assertQueue('orders.work', { arguments: { 'x-dead-letter-exchange': 'orders.dlx' } });
    await conn.close();
    assert.equal(topology.current.queue('orders.work'), null, 'not listed before it was declared');

    // Five writes name it at once: all wait for the same early refresh.
    const listings = reads.listings;
    await Promise.all(
      Array.from({ length: 5 }, () => topology.learn(['orders.work'], 20_000, 'orders-api')),
    );
    assert.equal(topology.current.queue('orders.work')?.deadLetterExchange, 'orders.dlx');
    assert.equal(reads.listings - listings, 1, 'one refresh for five writes');
    assert.equal(topology.current.version, 2);

    // A name the broker has not: one refresh answers it, the next write does not wait again.
    await topology.learn(['orders.made-up'], 20_000, 'worker');
    const version: number = topology.current.version;
    assert.equal(version, 3);
    await topology.learn(['orders.made-up'], 20_000, 'another');
    assert.equal(topology.current.version, version, 'asked once between scheduled refreshes');
    // Fifty made-up names at once: one refresh.
    const many = Array.from({ length: 50 }, (_, i) => `forged.${i}`);
    await Promise.all(many.map((name) => topology.learn([name], 20_000, 'flooder')));
    assert.equal(topology.current.version, version + 1);
  } finally {
    await topology.stop();
  }
});

test('a broker that does not answer: the part is down, waits end at their bound', async () => {
  const health = new Health(new Registry(), log);
  const closed = `http://guest:guest@127.0.0.1:${await freePort()}`;
  const topology = refresher(new ManagementApi(closed), health);
  topology.start();
  try {
    await waitFor('the topology part down', () => topology.health().up === false, {
      timeoutMs: 20_000,
    });
    assert.equal(health.statusOf(PART).up, false);
    assert.throws(() => topology.answer(), /fetch failed|ECONNREFUSED/);
    await topology.untilLoaded(50);
    assert.equal(topology.current.loaded, false);
    await topology.learn(['orders.work'], 50);
    assert.equal(topology.current.queue('orders.work'), null, 'nothing made up');
  } finally {
    await topology.stop();
  }
});

test("a sender naming made-up queues spends its own early refreshes, not another's", async () => {
  const reads = counted(new ManagementApi(RABBITMQ_MANAGEMENT_URL));
  const topology = refresher(reads);
  topology.start();
  try {
    await topology.untilLoaded(10_000);
    const flood = async (from: number) => {
      const before = reads.listings;
      for (let i = from; i < from + 10; i++)
        await topology.learn([`forged.${i}`, `forged.${i}.b`], 20_000, '192.0.2.7');
      return reads.listings - before;
    };
    assert.equal(await flood(0), EARLY_PER_SENDER, 'two early refreshes, then none');

    const conn = await amqp.connect(vhost.url);
    const ch = await conn.createChannel();
    await ch.assertQueue('payments.work', { arguments: { 'x-dead-letter-exchange': 'p.dlx' } });
    await conn.close();
    // Another sender names a real new queue while the first floods: learnt at once.
    const before = reads.listings;
    const [, learnt] = await Promise.all([
      flood(100),
      topology
        .learn(['payments.work'], 20_000, '198.51.100.4')
        .then(() => topology.current.queue('payments.work')?.deadLetterExchange),
    ]);
    assert.equal(learnt, 'p.dlx');
    assert.equal(reads.listings - before, 1, "the flood's names asked nothing more");
  } finally {
    await topology.stop();
  }
});
