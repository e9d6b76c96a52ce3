// The spans the aio-pika instrumentation (opentelemetry-python-contrib) writes, from its source.
import { KIND, type SdkShape } from '../testing/shape.js';

/**
 * opentelemetry-python-contrib v0.65b0 instrumentation/opentelemetry-instrumentation-aio-pika:
 * span_builder.py (names "<destination> send" and "<destination> receive", messaging.temp_destination
 * on a publish), publish_decorator.py (the destination "<exchange>,<key>"), callback_decorator.py
 * (the consumer's destination is the exchange, or the routing key on the default exchange; its span
 * ends when the callback returns), aio_pika_instrumentor.py (tracer
 * opentelemetry.instrumentation.aio_pika).
 */
const aioPika: SdkShape = {
  name: 'python-aio-pika',
  profile: 'python-aio-pika',
  scope: { name: 'opentelemetry.instrumentation.aio_pika', version: '0.65b0' },
  source:
    'opentelemetry-python-contrib v0.65b0 instrumentation/opentelemetry-instrumentation-aio-pika',
  creation: 'parent',
  publish: (m) => ({
    name: `${m.exchange},${m.routingKey} send`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': `${m.exchange},${m.routingKey}`,
      'net.peer.name': '127.0.0.1',
      'net.peer.port': 5672,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
      'messaging.temp_destination': true,
    },
  }),
  deliver: (m) => ({
    name: `${m.exchange || m.routingKey} receive`,
    kind: KIND.consumer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': m.exchange || m.routingKey,
      'net.peer.name': '127.0.0.1',
      'net.peer.port': 5672,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
      'messaging.operation': 'receive',
    },
  }),
  settleSpan: () => null,
};

export const SHAPES: readonly SdkShape[] = [aioPika];
