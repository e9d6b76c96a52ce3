// The spans the amqplib instrumentation (opentelemetry-js-contrib) writes, from its source.
import { KIND, type SdkShape } from '../testing/shape.js';

/** opentelemetry-js-contrib packages/instrumentation-amqplib 0.71.0, src/amqplib.ts. */
const amqplib: SdkShape = {
  name: 'node-amqplib',
  profile: 'node-amqplib',
  scope: { name: '@opentelemetry/instrumentation-amqplib', version: '0.71.0' },
  source: 'opentelemetry-js-contrib packages/instrumentation-amqplib 0.71.0 src/amqplib.ts',
  creation: 'parent',
  publish: (m) => ({
    name: `publish ${m.exchange === '' ? '<default>' : m.exchange}`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': m.exchange,
      'messaging.destination_kind': 'topic',
      'messaging.rabbitmq.routing_key': m.routingKey,
      ...(m.messageId ? { 'messaging.message_id': m.messageId } : {}),
    },
  }),
  deliver: (m, settle) => ({
    name: `${m.queue} process`,
    kind: KIND.consumer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': m.exchange,
      'messaging.destination_kind': 'topic',
      'messaging.rabbitmq.routing_key': m.routingKey,
      'messaging.operation': 'process',
      ...(m.messageId ? { 'messaging.message_id': m.messageId } : {}),
    },
    // endConsumerSpan: an ack leaves the status; nack and reject set it, saying the requeue.
    ...(settle.op === 'nack' || settle.op === 'reject'
      ? {
          status: {
            code: 2,
            message: `${settle.op} called on message ${settle.requeue ? 'with' : 'without'} requeue`,
          },
        }
      : // Never settled: the instrumentation's consumeTimeoutMs ends it.
        settle.op === 'none'
        ? { status: { code: 2, message: 'instrumentation timeout called on message with requeue' } }
        : {}),
  }),
  settleSpan: () => null,
};

export const SHAPES: readonly SdkShape[] = [amqplib];
