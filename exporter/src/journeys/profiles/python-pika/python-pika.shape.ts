// The spans the pika instrumentation (opentelemetry-python-contrib) writes, from its source.
import { KIND, type SdkShape } from '../testing/shape.js';

/**
 * opentelemetry-python-contrib v0.65b0 (main unchanged but for formatting)
 * instrumentation/opentelemetry-instrumentation-pika: utils.py (_decorate_basic_publish,
 * _decorate_callback, _get_span, _enrich_span: the destination is the exchange, or the routing key
 * on the default exchange; the consumer span is the callback's, ended when it returns; an exception
 * sets its status), pika_instrumentor.py (tracer __name__, schema 1.11.0). Old semantic-convention
 * names (opentelemetry-semantic-conventions trace.SpanAttributes).
 */
const pika: SdkShape = {
  name: 'python-pika',
  profile: 'python-pika',
  scope: { name: 'opentelemetry.instrumentation.pika.pika_instrumentor', version: '0.65b0' },
  source: 'opentelemetry-python-contrib v0.65b0 instrumentation/opentelemetry-instrumentation-pika',
  creation: 'parent',
  publish: (m) => ({
    name: `${m.exchange || m.routingKey} send`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.temp_destination': true,
      'messaging.destination': m.exchange || m.routingKey,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
      'net.peer.name': '127.0.0.1',
      'net.peer.port': 5672,
    },
  }),
  deliver: (m) => ({
    name: `${m.exchange || m.routingKey} receive`,
    kind: KIND.consumer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.operation': 'receive',
      'messaging.destination': m.exchange || m.routingKey,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
      'net.peer.name': '127.0.0.1',
      'net.peer.port': 5672,
    },
  }),
  settleSpan: () => null,
};

export const SHAPES: readonly SdkShape[] = [pika];
