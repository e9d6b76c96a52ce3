// The spans Spring AMQP's observation writes through Micrometer Tracing, from its source.
import { KIND, type SdkShape } from '../testing/shape.js';

/**
 * spring-amqp v4.1.1 RabbitTemplateObservation, RabbitListenerObservation, RabbitMessageSender-
 * and ReceiverContext (names "<exchange>/<key> send", "<queue> receive"; the listener's
 * destination is its queue, its delivery tag a string); micrometer-tracing v1.7.0 bridge-otel
 * (peer.service from the remote service name, status OK when unset);
 * PropagatingReceiverTracingObservationHandler (the creation context is the parent); spring-boot
 * v4.1.1 OpenTelemetryTracingAutoConfiguration (tracer "org.springframework.boot"). The container
 * acks after the listener returns: no span records it.
 */
const spring: SdkShape = {
  name: 'spring-amqp',
  profile: 'spring-amqp',
  scope: { name: 'org.springframework.boot', version: '4.1.1' },
  source: 'spring-amqp v4.1.1, micrometer-tracing v1.7.0, spring-boot v4.1.1',
  creation: 'parent',
  publish: (m) => ({
    name: `${m.exchange}/${m.routingKey} send`,
    kind: KIND.producer,
    attributes: {
      'spring.rabbit.template.name': 'rabbitTemplate',
      'messaging.destination.name': m.exchange,
      'messaging.rabbitmq.destination.routing_key': m.routingKey,
      'peer.service': 'RabbitMQ',
    },
    status: { code: 1 },
  }),
  // A listener that throws is observed as an error; the container then rejects the message.
  deliver: (m, settle) => ({
    name: `${m.queue} receive`,
    kind: KIND.consumer,
    attributes: {
      'spring.rabbit.listener.id':
        'org.springframework.amqp.rabbit.RabbitListenerEndpointContainer#0',
      'messaging.destination.name': m.queue,
      'messaging.rabbitmq.message.delivery_tag': String(m.deliveryTag),
      'peer.service': 'RabbitMQ',
    },
    status:
      settle.op === 'nack' || settle.op === 'reject'
        ? { code: 2, message: 'Listener method threw exception' }
        : { code: 1 },
  }),
  settleSpan: () => null,
};

export const SHAPES: readonly SdkShape[] = [spring];
