// The exporter's one memory bound (memory.budgetBytes, exporter/src/runtime/memory.ts): over it,
// every input stops taking more. An exporter given a budget below what any Node process holds is
// over it from its first reading, so each input is seen refusing or paused: OTLP over HTTP (503
// with Retry-After, the client reading its answer), over gRPC (UNAVAILABLE), on the ingest thread,
// and dead-letter parking (its consumer cancelled, the dead letter left in its queue), while the
// probes and /metrics keep answering. The switch itself, pause and resume on a real queue, is
// tested with the consumer alone.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import amqp from 'amqplib';
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { createTestVhost, waitFor, type TestVhost } from '@acktrail/testing';
import { TestExporter, partUp } from '@acktrail/exporter/testing';
import {
  DLQ,
  deadLetterBench,
  type DeadLetterBench,
} from '@acktrail/exporter/testing/dead-letter-broker';
import { jsonBody } from '@acktrail/exporter/testing/otlp';
import { PausableConsumer } from '@acktrail/exporter/testing/parts';

/** The least the budget may be; every Node process running these tests holds more. */
const BUDGET = 64 * 1024 * 1024;
const KEY = randomBytes(32).toString('base64');

let bench: DeadLetterBench;
let vhost: TestVhost;

before(async () => {
  bench = await deadLetterBench();
  vhost = await createTestVhost();
});
after(async () => {
  await bench.drop();
  await vhost.drop();
});

/** Posts one small OTLP/JSON body; the status, Retry-After and the answer's message. */
async function post(url: string) {
  const res = await fetch(`${url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: jsonBody(1, 1, 'ev-memory'),
  });
  const body = (await res.json()) as { message?: string };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), message: body.message };
}

/** One gRPC Export call with an empty request; its status code. */
function grpcExport(port: number): Promise<number> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  return new Promise<number>((resolve) => {
    client.makeUnaryRequest(
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.alloc(0),
      new Metadata(),
      (err: ServiceError | null) => {
        resolve(err?.code ?? status.OK);
      },
    );
  }).finally(() => {
    client.close();
  });
}

test('over the budget: OTLP refused over HTTP and gRPC, parking paused, the probes and /metrics answer', async () => {
  const conn = await amqp.connect(bench.vhost.url);
  const ch = await conn.createConfirmChannel();
  ch.publish('jobs', 'job', Buffer.from('{"id":"dl-memory"}'), { messageId: 'dl-memory' });
  await ch.waitForConfirms();
  // queue.declare, passive: the queue's own counts now, not the management API's sampled ones.
  const queue = () => ch.checkQueue(DLQ);
  await waitFor('the dead letter in its queue', async () => (await queue()).messageCount === 1);
  const exporter = await TestExporter.start(
    {
      ACKTRAIL_DATABASE_URL: bench.store.url,
      ACKTRAIL_DEAD_LETTER_KEY: KEY,
      ACKTRAIL_OTLP_GRPC_PORT: '0',
    },
    {
      rabbitmq: { enabled: false },
      memory: { budgetBytes: BUDGET },
      journeys: { maxInflightBytes: 1024 * 1024 },
      deadLetters: { enabled: true, url: bench.vhost.url, queues: [{ queue: DLQ }] },
    },
  );
  try {
    await exporter.exporter.ready;
    const refused = await post(exporter.url);
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.retryAfter) > 0, 'Retry-After says when to come back');
    assert.match(refused.message ?? '', /memory budget/);
    assert.equal(await grpcExport(exporter.ports.otlpGrpc!), status.UNAVAILABLE);

    // Parking's part is up once it consumes every queue it should: paused, it consumes none.
    await waitFor('parking up', async () => (await partUp(exporter.url, 'dead_letters')) === true);
    const q = await queue();
    assert.equal(q.consumerCount, 0, 'parking takes no deliveries over the budget');
    assert.equal(q.messageCount, 1, 'the dead letter waits in its queue');

    assert.equal((await fetch(`${exporter.url}/healthz`)).status, 200);
    const scrape = await exporter.scrape();
    assert.equal(scrape.value('acktrail_memory_over_budget'), 1);
    assert.equal(scrape.value('acktrail_memory_budget_bytes'), BUDGET);
    assert.equal(scrape.value('acktrail_ingest_refused_total', { reason: 'over_memory' }), 2);
  } finally {
    await exporter.close();
    await conn.close();
  }
});

test('over the budget, the ingest thread refuses too (503)', async () => {
  const exporter = await TestExporter.withStore(
    { ACKTRAIL_INGEST_PORT: '0' },
    { memory: { budgetBytes: BUDGET }, journeys: { maxInflightBytes: 1024 * 1024 } },
  );
  try {
    const ingest = `http://127.0.0.1:${exporter.ports.ingest}`;
    // The thread learns that the store is ready (and the budget's state with it) by a message.
    const refused = await waitFor('the ingest thread told the store is ready', async () => {
      const answer = await post(ingest);
      return /store/.test(answer.message ?? '') ? null : answer;
    });
    assert.equal(refused.status, 503);
    assert.match(refused.message ?? '', /memory budget/);
    const scrape = await exporter.scrape();
    assert.ok((scrape.value('acktrail_ingest_refused_total', { reason: 'over_memory' }) ?? 0) >= 1);
  } finally {
    await exporter.close();
  }
});

test('over the budget, the Celery consumer over AMQP takes no events', async () => {
  const exporter = await TestExporter.start(
    {},
    {
      rabbitmq: { enabled: false },
      memory: { budgetBytes: BUDGET },
      journeys: { maxInflightBytes: 1024 * 1024 },
      celery: { enabled: true, url: vhost.url },
    },
  );
  const conn = await amqp.connect(vhost.url);
  try {
    // The part is up once its queue is declared and its consumer started (or, paused, not).
    await waitFor('celery up', async () => (await partUp(exporter.url, 'celery')) === true);
    const ch = await conn.createChannel();
    const events = await ch.checkQueue('acktrail.celery.events');
    assert.equal(events.consumerCount, 0, 'no consumer on the event queue over the budget');
  } finally {
    await conn.close();
    await exporter.close();
  }
});

test('a paused consumer takes nothing new and finishes what it holds; resumed, it takes the rest', async () => {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createChannel();
  await ch.prefetch(1);
  await ch.assertQueue('memory.work', { durable: true });
  const pub = await conn.createConfirmChannel();
  const send = async (n: number) => {
    for (let i = 0; i < n; i++) pub.sendToQueue('memory.work', Buffer.from(String(i)));
    await pub.waitForConfirms();
  };
  const taken: string[] = [];
  const consumer = new PausableConsumer(
    ch,
    'memory.work',
    (msg) => {
      taken.push(msg.content.toString());
      ch.ack(msg);
    },
    { noAck: false },
    true,
  );
  const state = () => ch.checkQueue('memory.work');
  try {
    await send(3);
    await consumer.start();
    const first = await state();
    assert.equal(first.consumerCount, 0, 'paused from the start: no consumer');
    assert.equal(first.messageCount, 3);
    await consumer.setPaused(false);
    await waitFor('three taken', () => taken.length === 3);
    await consumer.setPaused(true);
    await send(2);
    const paused = await state();
    assert.equal(paused.consumerCount, 0);
    assert.equal(paused.messageCount, 2, 'nothing delivered while paused');
    // Pause and resume in quick turns: the last one wins, one consumer at most.
    void consumer.setPaused(false);
    void consumer.setPaused(true);
    await consumer.setPaused(false);
    await waitFor('five taken', () => taken.length === 5);
    assert.equal((await state()).consumerCount, 1);
  } finally {
    await conn.close();
  }
});
