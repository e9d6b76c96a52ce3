// The spans the OpenTelemetry Java agent writes, old and v1.43 names, from its source.
import { KIND, type SdkShape } from '../testing/shape.js';

const NET = { 'network.peer.address': '127.0.0.1', 'network.peer.port': 5672 };

/**
 * opentelemetry-java-instrumentation v2.31.0 instrumentation/rabbitmq-2.7: RabbitSingletons
 * (INSTRUMENTATION_NAME, channel and deliver instrumenters), RabbitChannelAttributesGetter and
 * RabbitDeliveryAttributesGetter (getMessageId returns null), DeliveryRequest.spanName,
 * RabbitInstrumenterHelper.onCommand (a settle span renamed "basic.ack"), TracedDelegatingConsumer
 * (the process span ends when handleDelivery returns); MessagingAttributesExtractor (old names).
 * Default semantic conventions (no otel.semconv-stability.opt-in).
 */
const javaAgent: SdkShape = {
  name: 'java-agent',
  profile: 'java-agent',
  scope: { name: 'io.opentelemetry.rabbitmq-2.7', version: '2.31.0-alpha' },
  source: 'opentelemetry-java-instrumentation v2.31.0 instrumentation/rabbitmq-2.7',
  creation: 'parent',
  publish: (m) => ({
    name: `${m.exchange === '' ? '<default>' : m.exchange} publish`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': m.exchange === '' ? '<default>' : m.exchange,
      'messaging.operation': 'publish',
      'messaging.message.body.size': m.bodySize,
      ...(m.routingKey ? { 'messaging.rabbitmq.destination.routing_key': m.routingKey } : {}),
      ...NET,
      'network.type': 'ipv4',
    },
  }),
  deliver: (m) => ({
    name: `${m.queue} process`,
    kind: KIND.consumer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': m.exchange === '' ? '<default>' : m.exchange,
      'messaging.operation': 'process',
      'messaging.message.body.size': m.bodySize,
      ...(m.routingKey ? { 'messaging.rabbitmq.destination.routing_key': m.routingKey } : {}),
      ...NET,
    },
  }),
  settleSpan: (_m, settle) =>
    settle.op === 'none'
      ? null
      : {
          name: `basic.${settle.op}`,
          kind: KIND.client,
          attributes: { 'messaging.system': 'rabbitmq', ...NET, 'network.type': 'ipv4' },
        },
};

/**
 * The Java agent with otel.semconv-stability.opt-in=messaging (v1.43 names): the same files,
 * RabbitInstrumenterHelper.producerDestinationName / consumerDestinationName ("<exchange>:<key>",
 * "<exchange>:<key>:<queue>"), the settle instrumenters (ack, nack, reject as CLIENT spans with
 * messaging.operation.type settle) and MessagingProcessInstrumenterFactory (a link to the creation
 * context, which is also the parent when no span is current).
 */
const javaAgentStable: SdkShape = {
  ...javaAgent,
  name: 'java-agent-stable',
  creation: 'parent+link',
  publish: (m) => ({
    name: `publish ${[m.exchange, m.routingKey].filter(Boolean).join(':') || 'amq.default'}`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination.name':
        [m.exchange, m.routingKey].filter(Boolean).join(':') || 'amq.default',
      'messaging.operation.name': 'publish',
      'messaging.operation.type': 'send',
      ...(m.routingKey ? { 'messaging.rabbitmq.destination.routing_key': m.routingKey } : {}),
      'server.address': '127.0.0.1',
      'server.port': 5672,
    },
  }),
  deliver: (m) => {
    const destination = [m.exchange, m.routingKey, m.queue === m.routingKey ? '' : m.queue]
      .filter(Boolean)
      .join(':');
    return {
      name: `process ${destination}`,
      kind: KIND.consumer,
      attributes: {
        'messaging.system': 'rabbitmq',
        'messaging.destination.name': destination,
        'messaging.operation.name': 'process',
        'messaging.operation.type': 'process',
        ...(m.routingKey ? { 'messaging.rabbitmq.destination.routing_key': m.routingKey } : {}),
        'messaging.rabbitmq.message.delivery_tag': m.deliveryTag,
        'server.address': '127.0.0.1',
        'server.port': 5672,
      },
    };
  },
  settleSpan: (m, settle) =>
    settle.op === 'none'
      ? null
      : {
          name: settle.op,
          kind: KIND.client,
          attributes: {
            'messaging.system': 'rabbitmq',
            'messaging.operation.name': settle.op,
            'messaging.operation.type': 'settle',
            'messaging.rabbitmq.message.delivery_tag': m.deliveryTag,
            'server.address': '127.0.0.1',
            'server.port': 5672,
          },
        },
};

export const SHAPES: readonly SdkShape[] = [javaAgent, javaAgentStable];
