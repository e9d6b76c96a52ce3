// The amqplib hooks against the real broker: the attributes the stock instrumentation lacks,
// the settle of each ack / nack / reject on its delivery's span, x-death reasons and unroutable
// publishes, with one attribute per fact (the stock ones where the stock instrumentation has one).
import { memory, tracing } from './testing/memory-tracing.js';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import amqp from 'amqplib';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { createTestVhost, waitFor, type TestVhost } from '@acktrail/testing';
import { continueFromOutbox, trackReturns } from './index.js';

let vhost: TestVhost;
before(async () => {
  vhost = await createTestVhost('acktrail_instr');
});
after(async () => {
  await tracing.shutdown();
  await vhost.drop();
});

const attr = (s: ReadableSpan, name: string) => s.attributes[name];

async function spansOf(eventId: string, count: number): Promise<ReadableSpan[]> {
  return waitFor(`${count} spans of ${eventId}`, async () => {
    await tracing.flush();
    // The message id is the event id here: the stock attribute carries it.
    const spans = memory
      .getFinishedSpans()
      .filter((s) => attr(s, 'messaging.message_id') === eventId);
    return spans.length >= count ? spans : null;
  });
}

test('publish, redelivery after nack with requeue, reject to a dead-letter queue', async () => {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange('dlx', 'fanout');
  await ch.assertQueue('work', { arguments: { 'x-dead-letter-exchange': 'dlx' } });
  await ch.assertQueue('dead');
  await ch.bindQueue('dead', 'dlx', '');

  await new Promise<void>((resolve, reject) => {
    ch.publish(
      '',
      'work',
      Buffer.from('{}'),
      {
        messageId: 'ev-1',
        headers: { 'x-acktrail-aggregate-type': 'order', 'x-acktrail-aggregate-id': '42' },
      },
      (err: unknown) => {
        if (err) reject(err instanceof Error ? err : new Error('nacked'));
        else resolve();
      },
    );
  });

  let deliveries = 0;
  await ch.consume('work', (msg) => {
    if (!msg) return;
    deliveries++;
    if (deliveries === 1) ch.nack(msg, false, true);
    else ch.reject(msg, false);
  });
  await ch.consume('dead', (msg) => {
    if (msg) ch.ack(msg);
  });

  const spans = await spansOf('ev-1', 4);
  // The stock spans' own kind and name say publish, deliver and the queue: no copies of them.
  const ofKind = (kind: SpanKind) => spans.filter((s) => s.kind === kind);
  const queue = (s: ReadableSpan) => s.name.replace(/ process$/, '');
  for (const s of spans) assert.equal(attr(s, 'acktrail.stage'), undefined, s.name);

  const [publish] = ofKind(SpanKind.PRODUCER);
  assert.ok(publish, 'a publish outside an outbox relay is a plain publish');
  assert.equal(attr(publish, 'acktrail.publish.outcome'), 'confirmed');
  assert.equal(attr(publish, 'acktrail.aggregate_id'), '42');
  // One attribute per fact: no copy of what the stock instrumentation recorded.
  for (const name of ['acktrail.event_id', 'messaging.message.id', 'messaging.destination.name'])
    assert.equal(attr(publish, name), undefined, name);

  const delivers = ofKind(SpanKind.CONSUMER).sort(
    (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
  );
  const work = delivers.filter((s) => queue(s) === 'work');
  assert.deepEqual(
    work.map((s) => attr(s, 'acktrail.delivery.redelivered')),
    [false, true],
  );
  assert.deepEqual(
    work.map((s) => attr(s, 'acktrail.delivery.attempt')),
    [undefined, undefined],
    'the first attempt is the default',
  );
  const dead = delivers.find((s) => queue(s) === 'dead');
  assert.ok(dead, 'the dead-lettered copy is delivered from the DLQ');
  assert.equal(attr(dead, 'acktrail.dead_letter.reason'), 'rejected');
  assert.equal(attr(dead, 'acktrail.delivery.attempt'), 2);
  // Every delivery belongs to the publisher's trace.
  for (const d of delivers) assert.equal(d.spanContext().traceId, publish.spanContext().traceId);

  assert.equal(spans.length, 4, 'no span of its own for a settle');
  const outcomes = delivers
    .map((s) => `${queue(s)}:${String(attr(s, 'acktrail.settle.outcome'))}`)
    .sort();
  assert.deepEqual(outcomes, ['dead:ack', 'work:nack_requeue', 'work:reject']);
  await conn.close();
});

test('an unroutable mandatory publish is marked on its span', async () => {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  trackReturns(ch);
  await ch.assertExchange('events', 'topic');
  await new Promise<void>((resolve) => {
    ch.publish(
      'events',
      'nowhere',
      Buffer.from('{}'),
      { messageId: 'ev-2', mandatory: true },
      () => {
        resolve();
      },
    );
  });
  const [publish] = await spansOf('ev-2', 1);
  assert.ok(publish);
  assert.equal(attr(publish, 'acktrail.publish.outcome'), 'unroutable');
  assert.equal(attr(publish, 'messaging.rabbitmq.routing_key'), 'nowhere');
  await conn.close();
});

test("a relay's publish of an outbox row is the outbox's publish", async () => {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue('relayed');
  await new Promise<void>((resolve) => {
    continueFromOutbox(null, 'ev-3', () => {
      ch.publish('', 'relayed', Buffer.from('{}'), { messageId: 'ev-3' }, () => {
        resolve();
      });
    });
  });
  const [publish] = await spansOf('ev-3', 1);
  assert.equal(attr(publish!, 'acktrail.stage'), 'outbox.publish');
  await conn.close();
});
