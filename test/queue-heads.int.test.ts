// The head age of queues the broker gives no head timestamp for, from the journeys: a quorum
// queue (never a timestamp) and a classic queue whose messages carry none, both bound to a topic
// exchange. The age is that of the oldest publish the bindings route to the queue with no delivery
// from it yet; publishes routed elsewhere, and deliveries from another queue, do not count.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind } from '@opentelemetry/api';
import amqp, { type ChannelModel } from 'amqplib';
import { type TestDatabase, type TestVhost, createTestVhost, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { AMQPLIB, exportSpans, makeSpans } from '@acktrail/exporter/testing/otlp';

let vhost: TestVhost;
let store: TestDatabase;
let conn: ChannelModel;
let exporter: TestExporter;
const now = Date.now();
const AGO = { e0: 400, e1: 300, e2: 200, e3: 100 };

const publish = (eventId: string, routingKey: string, agoSeconds: number) => ({
  name: 'jobs publish',
  kind: SpanKind.PRODUCER,
  startMs: now - agoSeconds * 1000,
  attributes: {
    'messaging.system': 'rabbitmq',
    'messaging.destination': 'jobs',
    'messaging.rabbitmq.routing_key': routingKey,
    'messaging.message_id': eventId,
  },
});

before(async () => {
  vhost = await createTestVhost('acktrail_heads');
  store = await createTestDatabase('acktrail_heads', false);
  conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange('jobs', 'topic');
  await ch.assertQueue('work.quorum', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await ch.assertQueue('work.classic');
  await ch.bindQueue('work.quorum', 'jobs', 'job.#');
  await ch.bindQueue('work.classic', 'jobs', 'job.#');
  // Three messages in each queue, with no timestamp property (amqplib sets none by default).
  for (let i = 0; i < 3; i++) ch.publish('jobs', 'job.created', Buffer.from(`job ${i}`));
  ch.publish('jobs', 'other.key', Buffer.from('routed nowhere'));
  await ch.waitForConfirms();
  // Started once the broker's statistics show the messages: the queues are never seen empty, so
  // the whole retention window is searched (the spans below are back-dated).
  await waitFor('the broker to count the messages', async () => {
    const text = await (
      await fetch(
        `http://127.0.0.1:15692/metrics/detailed?family=queue_coarse_metrics&vhost=${encodeURIComponent(vhost.name)}`,
      )
    ).text();
    return ['work.quorum', 'work.classic'].every((q) =>
      text.includes(`rabbitmq_detailed_queue_messages_ready{vhost="${vhost.name}",queue="${q}"} 3`),
    );
  });
  exporter = await TestExporter.start(
    {
      RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:15672',
      ACKTRAIL_DATABASE_URL: store.url,
    },
    { rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 } },
  );
  await exporter.exporter.ready;
  const sent = await exportSpans(
    exporter.url,
    makeSpans(
      [
        publish('e0', 'other.key', AGO.e0),
        publish('e1', 'job.created', AGO.e1),
        publish('e2', 'job.created', AGO.e2),
        publish('e3', 'job.created', AGO.e3),
      ],
      'jobs-api',
      AMQPLIB,
    ),
    'protobuf',
  );
  assert.equal(sent.code, 0);
});

after(async () => {
  await exporter.close();
  await conn.close();
  await vhost.drop();
  await store.drop();
});

const headAge = async (queue: string) =>
  (await exporter.scrape()).value('acktrail_queue_head_age_seconds', { vhost: vhost.name, queue });

/** The age once it comes from the publish `agoSeconds` before the test began. */
const untilHeadFrom = (queue: string, agoSeconds: number) =>
  waitFor(
    `${queue}'s head age from the publish ${agoSeconds} s back`,
    async () => {
      const age = await headAge(queue);
      const elapsed = (Date.now() - now) / 1000;
      return age !== undefined && age >= agoSeconds && age <= agoSeconds + elapsed + 1
        ? age
        : undefined;
    },
    { timeoutMs: 30_000 },
  );

test('quorum and timestamp-less classic queues: the oldest publish routed to them', async () => {
  // e0 is older, but its routing key reaches neither queue.
  await untilHeadFrom('work.quorum', AGO.e1);
  await untilHeadFrom('work.classic', AGO.e1);
});

test('a delivery from the queue moves its head on; one from another queue does not', async () => {
  const sent = await exportSpans(
    exporter.url,
    makeSpans(
      [
        {
          name: 'work.quorum process',
          kind: SpanKind.CONSUMER,
          startMs: now - (AGO.e1 - 1) * 1000,
          attributes: { 'messaging.system': 'rabbitmq', 'messaging.message_id': 'e1' },
        },
      ],
      'jobs-worker',
      AMQPLIB,
    ),
    'protobuf',
  );
  assert.equal(sent.code, 0);
  await untilHeadFrom('work.quorum', AGO.e2);
  assert.ok((await headAge('work.classic'))! >= AGO.e1, 'work.classic still waits for e1');
});
