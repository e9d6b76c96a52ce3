// Spans exactly as each instrumentation writes them today, taken from its own source at a pinned
// version (each shape names the files). They guard every journey rule (journeys/spans/profiles/,
// journeys/model/): the unit tests turn them into decoded spans (sdkSpans below), and the
// integration test's client (test/fixtures/sdk-client.ts) emits them with the OpenTelemetry SDK
// around real messages through RabbitMQ. Attribute values that come from the connection
// (addresses, ports) are written as the instrumentation writes them, with this machine's values.
import type { AttributeValue } from '@acktrail/conventions';
import type { ProfileId } from '../journeys/model/profiles.js';

/** OTLP span kinds. */
export const KIND = { internal: 1, client: 3, producer: 4, consumer: 5 } as const;

export interface ShapeSpan {
  name: string;
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP status: code 0 unset, 1 ok, 2 error. */
  status?: { code: number; message?: string };
}

/** What the client knows of one message and its delivery. */
export interface Message {
  exchange: string;
  routingKey: string;
  queue: string;
  /** The AMQP message-id property the publisher set, if it did. */
  messageId: string | null;
  deliveryTag: number;
  bodySize: number;
}

/** How the handler settled a delivery (`none`: it did not; the message stays unacked). */
export type Settle = { op: 'ack' } | { op: 'nack' | 'reject'; requeue: boolean } | { op: 'none' };

export interface SdkShape {
  profile: ProfileId;
  /** The instrumentation scope its spans carry (name, version; acktrail reads the name only). */
  scope: { name: string; version: string };
  /** The repository, tag and files the shape was read from. */
  source: string;
  publish(m: Message): ShapeSpan;
  /** The consumer span, ended as the instrumentation ends it for this settle. */
  deliver(m: Message, settle: Settle): ShapeSpan;
  /** How the consumer span names the message's creation context. */
  creation: 'parent' | 'link' | 'parent+link';
  /** A settle span of its own, a child of the consumer span; null: none is written. */
  settleSpan(m: Message, settle: Settle): ShapeSpan | null;
  /**
   * A receive span that starts a trace of its own and is the consumer span's parent (the consumer
   * span then links the creation context: `creation` is 'link').
   */
  receive?(m: Message): ShapeSpan;
  /**
   * Where the framework moves a message its consumer faulted on (MassTransit's "<queue>_error"),
   * acking the original: a reject without requeue is that move, not a reject.
   */
  faultQueue?(queue: string): string;
  /**
   * The handler's span inside the consumer span (MassTransit's "<endpoint> process"), ended as
   * the handler ends for this settle: in error where it threw.
   */
  handler?(m: Message, settle: Settle): ShapeSpan;
}

/** The exception a faulting handler throws in the shapes (its message is the span's status). */
export const HANDLER_FAULT = 'Card declined: insufficient funds';

const NET = { 'network.peer.address': '127.0.0.1', 'network.peer.port': 5672 };

/** opentelemetry-js-contrib packages/instrumentation-amqplib 0.71.0, src/amqplib.ts. */
const amqplib: SdkShape = {
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

/**
 * opentelemetry-java-instrumentation v2.31.0 instrumentation/rabbitmq-2.7: RabbitSingletons
 * (INSTRUMENTATION_NAME, channel and deliver instrumenters), RabbitChannelAttributesGetter and
 * RabbitDeliveryAttributesGetter (getMessageId returns null), DeliveryRequest.spanName,
 * RabbitInstrumenterHelper.onCommand (a settle span renamed "basic.ack"), TracedDelegatingConsumer
 * (the process span ends when handleDelivery returns); MessagingAttributesExtractor (old names).
 * Default semantic conventions (no otel.semconv-stability.opt-in).
 */
const javaAgent: SdkShape = {
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

/**
 * rabbitmq-dotnet-client v7.2.2 projects/RabbitMQ.Client/Impl/RabbitMQActivitySource.cs (sources
 * RabbitMQ.Client.Publisher and .Subscriber; UseRoutingKeyAsOperationName and
 * UsePublisherAsParent both true by default: "publish <key>", "deliver <key>", the creation
 * context as parent and as link), ConsumerDispatching/AsyncConsumerDispatcher.cs (the deliver
 * activity ends when HandleBasicDeliverAsync returns; its status is never set).
 */
const dotnet: SdkShape = {
  profile: 'dotnet-client',
  scope: { name: 'RabbitMQ.Client.Subscriber', version: '7.2.2' },
  source: 'rabbitmq-dotnet-client v7.2.2 RabbitMQActivitySource.cs, AsyncConsumerDispatcher.cs',
  creation: 'parent+link',
  publish: (m) => ({
    name: `publish ${m.routingKey}`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'network.protocol.name': 'amqp',
      'network.protocol.version': '0.9.1',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.destination.name': m.exchange === '' ? 'amq.default' : m.exchange,
      'messaging.rabbitmq.destination.routing_key': m.routingKey,
      'messaging.message.body.size': m.bodySize,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
      'server.address': '127.0.0.1',
      'server.port': 5672,
    },
  }),
  deliver: (m) => ({
    name: `deliver ${m.routingKey}`,
    kind: KIND.consumer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'network.protocol.name': 'amqp',
      'network.protocol.version': '0.9.1',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'deliver',
      'messaging.destination.name': m.exchange === '' ? 'amq.default' : m.exchange,
      'messaging.rabbitmq.destination.routing_key': m.routingKey,
      'messaging.message.body.size': m.bodySize,
      'messaging.rabbitmq.delivery_tag': m.deliveryTag,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
    },
  }),
  settleSpan: () => null,
};

/** The .NET publisher's activities carry the Publisher source; the subscriber's, the Subscriber. */
export const DOTNET_PUBLISHER_SCOPE = { ...dotnet.scope, name: 'RabbitMQ.Client.Publisher' };

/**
 * opentelemetry-python-contrib v0.65b0 (main unchanged but for formatting)
 * instrumentation/opentelemetry-instrumentation-pika: utils.py (_decorate_basic_publish,
 * _decorate_callback, _get_span, _enrich_span: the destination is the exchange, or the routing key
 * on the default exchange; the consumer span is the callback's, ended when it returns; an exception
 * sets its status), pika_instrumentor.py (tracer __name__, schema 1.11.0). Old semantic-convention
 * names (opentelemetry-semantic-conventions trace.SpanAttributes).
 */
const pika: SdkShape = {
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

/**
 * opentelemetry-python-contrib v0.65b0 instrumentation/opentelemetry-instrumentation-aio-pika:
 * span_builder.py (names "<destination> send" and "<destination> receive", messaging.temp_destination
 * on a publish), publish_decorator.py (the destination "<exchange>,<key>"), callback_decorator.py
 * (the consumer's destination is the exchange, or the routing key on the default exchange; its span
 * ends when the callback returns), aio_pika_instrumentor.py (tracer
 * opentelemetry.instrumentation.aio_pika).
 */
const aioPika: SdkShape = {
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

/**
 * MassTransit v8.5.8 (ActivitySource "MassTransit"): Logging/Diagnostics/LogContextActivityExtensions.cs
 * (StartSendActivity: "<entity> send", producer, messaging.operation send, messaging.system and
 * messaging.destination.name from the transport, messaging.masstransit.message_id;
 * StartReceiveActivity: "<endpoint> receive", consumer, messaging.operation receive,
 * messaging.destination.name the endpoint (its queue), messaging.message.id from the transport
 * headers; StartConsumerActivity: "<endpoint> process" inside it, messaging.operation process,
 * messaging.masstransit.message_id), DiagnosticHeaders.cs, StartedActivity.cs (AddExceptionEvent:
 * status error with the exception's message; Stop sets ok unless an error was recorded),
 * Transports/ReceivePipeDispatcher.cs (the receive activity stops after the receive lock
 * completes), RabbitMqReceiveLockContext.cs (Complete acks; Faulted nacks with requeue),
 * RabbitMqErrorTransport.cs and RabbitMqMoveTransport.cs (a fault is moved to "<queue>_error" by a
 * BasicPublishAsync on the channel: no send activity). A consumer that throws: its process
 * activity ends in error, the message is moved to "<queue>_error" and the receive completes: ok.
 */
const massTransit: SdkShape = {
  profile: 'masstransit',
  scope: { name: 'MassTransit', version: '8.5.8' },
  source:
    'MassTransit v8.5.8 src/MassTransit/Logging/Diagnostics, Transports/ReceivePipeDispatcher.cs',
  creation: 'parent',
  publish: (m) => ({
    name: `${m.exchange} send`,
    kind: KIND.producer,
    attributes: {
      'messaging.operation': 'send',
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': m.exchange,
      ...(m.messageId ? { 'messaging.masstransit.message_id': m.messageId } : {}),
      'messaging.masstransit.source_address': 'rabbitmq://127.0.0.1/shop_bus_abc',
      'messaging.masstransit.destination_address': `rabbitmq://127.0.0.1/${m.exchange}`,
      'messaging.masstransit.message_types': 'urn:message:Shop:OrderCreated',
    },
  }),
  deliver: (m, settle) => ({
    name: `${m.queue} receive`,
    kind: KIND.consumer,
    attributes: {
      'messaging.operation': 'receive',
      'messaging.destination.name': m.queue,
      'messaging.masstransit.input_address': `rabbitmq://127.0.0.1/${m.queue}`,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
    },
    // A nack with requeue is the receive lock's fault; everything else completes it (an ack).
    status:
      (settle.op === 'nack' || settle.op === 'reject') && settle.requeue
        ? { code: 2, message: 'The consumer faulted' }
        : settle.op === 'none'
          ? undefined
          : { code: 1 },
  }),
  // The error transport publishes the fault on the channel: no span of MassTransit's.
  settleSpan: () => null,
  // The consumer's activity: in error, with the exception's message, where it threw (a fault, or
  // the receive lock's fault that nacks with requeue).
  handler: (m, settle) => ({
    name: `${m.queue} process`,
    kind: KIND.consumer,
    attributes: {
      'messaging.operation': 'process',
      ...(m.messageId ? { 'messaging.masstransit.message_id': m.messageId } : {}),
      'messaging.masstransit.consumer_type': 'OrderCreatedConsumer',
      'messaging.masstransit.message_types': 'urn:message:Shop:OrderCreated',
    },
    status:
      settle.op === 'nack' || settle.op === 'reject'
        ? { code: 2, message: HANDLER_FAULT }
        : settle.op === 'none'
          ? undefined
          : { code: 1 },
  }),
  faultQueue: (queue) => `${queue}_error`,
};

/** Every shape, by the name tests use for it. */
export const SHAPES = {
  'node-amqplib': amqplib,
  'java-agent': javaAgent,
  'java-agent-stable': javaAgentStable,
  'spring-amqp': spring,
  'dotnet-client': dotnet,
  'python-pika': pika,
  'python-aio-pika': aioPika,
  'ruby-bunny': bunny,
  masstransit: massTransit,
} as const satisfies Record<string, SdkShape>;
export type ShapeName = keyof typeof SHAPES;

/** A span as the receiver decodes it, for the unit tests. */
export interface DecodedShape {
  span: ShapeSpan;
  scope: { name: string; version: string };
  traceId: string;
  spanId: string;
  parentSpanId: string;
  links: { traceId: string; spanId: string }[];
  startMs: number;
  endMs: number;
}

let nextId = 1;
const id16 = () => (nextId++).toString(16).padStart(16, '0');

/**
 * One message's spans as the shape writes them, for deliveries settled so: the publish (its
 * context propagated in the headers), then per delivery the consumer span (the creation context
 * as parent and/or link) and its settle span where the shape writes one. Times from `t0` (ms).
 */
export function shapeSpans(
  shape: SdkShape,
  m: Message,
  settles: Settle[],
  t0: number,
  traceId = 'c0'.repeat(16),
): DecodedShape[] {
  const publishId = id16();
  const out: DecodedShape[] = [
    {
      span: shape.publish(m),
      scope: shape.profile === 'dotnet-client' ? DOTNET_PUBLISHER_SCOPE : shape.scope,
      traceId,
      spanId: publishId,
      parentSpanId: '',
      links: [],
      startMs: t0,
      endMs: t0 + 2,
    },
  ];
  settles.forEach((settle, i) => {
    const at = t0 + 100 * (i + 1);
    const consumerId = id16();
    // A receive span of its own (Bunny's) starts a trace that the consumer span continues.
    const receiveId = shape.receive ? id16() : '';
    const consumerTrace = shape.receive
      ? (i + 1).toString(16).padStart(2, '0').repeat(16)
      : traceId;
    if (shape.receive)
      out.push({
        span: shape.receive({ ...m, deliveryTag: m.deliveryTag + i }),
        scope: shape.scope,
        traceId: consumerTrace,
        spanId: receiveId,
        parentSpanId: '',
        links: [],
        startMs: at - 1,
        endMs: at,
      });
    // With a link, the v1.43 consumer span may start a trace of its own (.NET without
    // UsePublisherAsParent); the shapes here keep the defaults: parent and link.
    out.push({
      span: shape.deliver({ ...m, deliveryTag: m.deliveryTag + i }, settle),
      scope: shape.scope,
      traceId: consumerTrace,
      spanId: consumerId,
      parentSpanId: shape.receive ? receiveId : shape.creation === 'link' ? '' : publishId,
      links: shape.creation === 'parent' ? [] : [{ traceId, spanId: publishId }],
      startMs: at,
      endMs: at + 20,
    });
    const handler = shape.handler?.({ ...m, deliveryTag: m.deliveryTag + i }, settle);
    if (handler)
      out.push({
        span: handler,
        scope: shape.scope,
        traceId: consumerTrace,
        spanId: id16(),
        parentSpanId: consumerId,
        links: [],
        startMs: at + 2,
        endMs: at + 9,
      });
    const settleSpan = shape.settleSpan({ ...m, deliveryTag: m.deliveryTag + i }, settle);
    if (settleSpan)
      out.push({
        span: settleSpan,
        scope: shape.scope,
        traceId: consumerTrace,
        spanId: id16(),
        parentSpanId: consumerId,
        links: [],
        startMs: at + 10,
        endMs: at + 11,
      });
  });
  return out;
}
