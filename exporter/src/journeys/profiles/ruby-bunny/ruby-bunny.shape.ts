// The spans the Bunny instrumentation (opentelemetry-ruby-contrib) writes, from its source.
import { KIND, type SdkShape } from '../testing/shape.js';

/**
 * opentelemetry-ruby-contrib instrumentation/bunny 0.25.0 (tracer OpenTelemetry::Instrumentation::Bunny):
 * patch_helpers.rb (basic_attributes, old semantic-convention names; destination_name joins the
 * exchange and the routing key with "."; with_process_span: the process span has no attributes,
 * its parent is the receive span, its link the producer's context from the headers;
 * trace_enrich_receive_span renames the receive span and sets the delivery's destination),
 * patches/reader_loop.rb (the receive span: a root span per frame read), patches/channel.rb
 * (basic_publish, handle_frameset), patches/consumer.rb (the process span ends when the block
 * returns; no ack is recorded).
 */
const bunny: SdkShape = {
  name: 'ruby-bunny',
  profile: 'ruby-bunny',
  scope: { name: 'OpenTelemetry::Instrumentation::Bunny', version: '0.25.0' },
  source: 'opentelemetry-ruby-contrib instrumentation/bunny 0.25.0 patch_helpers.rb, patches/',
  creation: 'link',
  publish: (m) => ({
    name: `${m.exchange}.${m.routingKey} publish`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': m.exchange,
      'messaging.destination_kind': m.exchange === '' ? 'queue' : 'topic',
      'messaging.protocol': 'AMQP',
      'messaging.protocol_version': '0.9.1',
      'net.peer.name': '127.0.0.1',
      'net.peer.port': 5672,
      'messaging.rabbitmq.routing_key': m.routingKey,
    },
  }),
  receive: (m) => ({
    name: `${m.exchange}.${m.routingKey} receive`,
    kind: KIND.consumer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': m.exchange,
      'messaging.destination_kind': m.exchange === '' ? 'queue' : 'topic',
      'messaging.protocol': 'AMQP',
      'messaging.protocol_version': '0.9.1',
      'net.peer.name': '127.0.0.1',
      'net.peer.port': 5672,
      'messaging.rabbitmq.routing_key': m.routingKey,
      'messaging.operation': 'receive',
    },
  }),
  deliver: (m) => ({
    name: `${m.exchange}.${m.routingKey} process`,
    kind: KIND.consumer,
    attributes: {},
  }),
  settleSpan: () => null,
};

export const SHAPES: readonly SdkShape[] = [bunny];
