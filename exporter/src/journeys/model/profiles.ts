// The instrumentations acktrail reads spans of, each as its own source writes them (the fixtures
// in testing/sdk-shapes.ts name the file and version each shape was taken from), and what each
// records. What a profile records decides what a journey may say: a settle only where a span
// records one, a queue only where a span names it. Unknown producers get the safe reading:
// nothing is assumed. The receiver reads spans by these (journeys/spans/profiles/read.ts); the verdict
// names the instrumentation that left a gap.
import { ATTR, SDK_PROFILES } from '@acktrail/conventions';
import type { SettleRecording } from './settle.js';

export const PROFILE_IDS = SDK_PROFILES;
export type ProfileId = (typeof PROFILE_IDS)[number];

/** The gaps a profile can leave, each with the line of application code that closes it. */
export const GAPS = ['event_id', 'queue', 'delivery_attempt', 'settle'] as const;
export type Gap = (typeof GAPS)[number];

export interface Profile {
  id: ProfileId;
  /** The instrumentation as its users name it. */
  sdk: string;
  /** Where its shape was read: repository, tag, files. */
  source: string;
  settle: SettleRecording;
  /** What closes each gap, for this SDK: one line. */
  fix: Record<Gap, string>;
}

const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

export const PROFILES: Record<ProfileId, Profile> = {
  acktrail: {
    id: 'acktrail',
    sdk: '@acktrail/instrument',
    source: 'instrument/src (this repository)',
    settle: 'settle-spans',
    fix: {
      event_id: `pass the event id as messageId when publishing, or set the baggage entry ${ATTR.eventId}`,
      queue: 'consume through the instrumented channel: it names the queue',
      delivery_attempt: 'consume through the instrumented channel: it records the redelivered flag',
      settle:
        'settle on the delivering channel: acktrail writes a settle span for each ack, nack or reject',
    },
  },
  'node-amqplib': {
    id: 'node-amqplib',
    sdk: 'OpenTelemetry amqplib instrumentation (Node)',
    source:
      'opentelemetry-js-contrib packages/instrumentation-amqplib 0.71.0 (src/amqplib.ts, src/utils.ts)',
    settle: 'span-end',
    fix: {
      event_id:
        'set messageId when publishing: channel.publish(exchange, key, body, { messageId: eventId }); the instrumentation records it as messaging.message_id on both sides',
      queue: 'the span name "<queue> process" names it; consume with the instrumented channel',
      delivery_attempt: `record the broker's redelivered flag on the consumer span: trace.getActiveSpan()?.setAttribute('${REDELIVERED}', msg.fields.redelivered) in the consumer, or @acktrail/instrument; without it a redelivery after a crash is invisible in the journey`,
      settle:
        "the consumer span ends on ack, nack or reject: keep the instrumentation's consumeTimeoutMs above your handler's time",
    },
  },
  'java-agent': {
    id: 'java-agent',
    sdk: 'OpenTelemetry Java agent (rabbitmq-2.7)',
    source:
      'opentelemetry-java-instrumentation v2.31.0 instrumentation/rabbitmq-2.7 (RabbitSingletons, RabbitChannelInstrumentation, RabbitInstrumenterHelper, DeliveryRequest)',
    settle: 'settle-spans-in-handler',
    fix: {
      event_id:
        'the agent records no message id: in handleDelivery, Span.current().setAttribute("acktrail.event_id", properties.getMessageId()); without it the journey is found by its trace id',
      queue:
        'the process span is named "<queue> process" (stable semconv: process <exchange>:<key>:<queue>); a generated queue is not named',
      delivery_attempt: `in handleDelivery: Span.current().setAttribute("${REDELIVERED}", envelope.isRedeliver())`,
      settle: `the agent records basic.ack, basic.nack and basic.reject as children of the process span when the handler calls them, not whether a nack requeues: Span.current().setAttribute("${SETTLE_ATTR}", requeue ? "nack_requeue" : "nack") before basicNack`,
    },
  },
  'spring-amqp': {
    id: 'spring-amqp',
    sdk: 'Spring AMQP observation (Micrometer Tracing, OpenTelemetry bridge)',
    source:
      'spring-amqp v4.1.1 RabbitListenerObservation, RabbitTemplateObservation; micrometer-tracing v1.7.0 bridge-otel; spring-boot v4.1.1 OpenTelemetryTracingAutoConfiguration',
    settle: 'none',
    fix: {
      event_id:
        'in the @RabbitListener: tracer.currentSpan().tag("acktrail.event_id", message.getMessageProperties().getMessageId()); without it the journey is found by its trace id',
      queue: 'the listener span names its queue (messaging.destination.name)',
      delivery_attempt: `in the listener: tracer.currentSpan().tag("${REDELIVERED}", String.valueOf(message.getMessageProperties().isRedelivered()))`,
      settle: `the container acks after the listener returns, outside its span: tracer.currentSpan().tag("${SETTLE_ATTR}", "ack") at the end of the listener ("reject" or "nack_requeue" in its catch)`,
    },
  },
  'dotnet-client': {
    id: 'dotnet-client',
    sdk: 'RabbitMQ .NET client 7 (RabbitMQActivitySource)',
    source:
      'rabbitmq-dotnet-client v7.2.2 projects/RabbitMQ.Client/Impl/RabbitMQActivitySource.cs, ConsumerDispatching/AsyncConsumerDispatcher.cs',
    settle: 'none',
    fix: {
      event_id:
        'set MessageId on the published properties (new BasicProperties { MessageId = eventId }): the client records it as messaging.message.id on publish and deliver',
      queue: `the client records the exchange and routing key, not the queue; acktrail infers it where the bindings route to one queue. To name it: Activity.Current?.SetTag("${ATTR.queue}", queueName) in HandleBasicDeliverAsync`,
      delivery_attempt: `in HandleBasicDeliverAsync: Activity.Current?.SetTag("${REDELIVERED}", redelivered)`,
      settle: `the deliver activity ends when the handler returns and records no ack: Activity.Current?.SetTag("${SETTLE_ATTR}", "ack") before BasicAckAsync ("reject", "nack" or "nack_requeue" before BasicRejectAsync or BasicNackAsync)`,
    },
  },
  'python-pika': {
    id: 'python-pika',
    sdk: 'OpenTelemetry pika instrumentation (Python)',
    source:
      'opentelemetry-python-contrib v0.65b0 (main unchanged) instrumentation/opentelemetry-instrumentation-pika utils.py, pika_instrumentor.py',
    settle: 'none',
    fix: {
      event_id:
        'publish with properties=pika.BasicProperties(message_id=event_id): the instrumentation records it as messaging.message.id',
      queue: `the instrumentation records the exchange (or the routing key on the default exchange), not the queue: in the callback, trace.get_current_span().set_attribute("${ATTR.queue}", queue)`,
      delivery_attempt: `in the callback: trace.get_current_span().set_attribute("${REDELIVERED}", method.redelivered)`,
      settle: `the span ends when the callback returns and records no ack: trace.get_current_span().set_attribute("${SETTLE_ATTR}", "ack") before ch.basic_ack(...)`,
    },
  },
  'python-aio-pika': {
    id: 'python-aio-pika',
    sdk: 'OpenTelemetry aio-pika instrumentation (Python)',
    source:
      'opentelemetry-python-contrib v0.65b0 (main unchanged) instrumentation/opentelemetry-instrumentation-aio-pika span_builder.py, callback_decorator.py, publish_decorator.py',
    settle: 'none',
    fix: {
      event_id:
        'publish aio_pika.Message(body, message_id=event_id): the instrumentation records it as messaging.message.id',
      queue: `the instrumentation records the exchange (or the routing key on the default exchange), not the queue: in the callback, trace.get_current_span().set_attribute("${ATTR.queue}", queue.name)`,
      delivery_attempt: `in the callback: trace.get_current_span().set_attribute("${REDELIVERED}", message.redelivered)`,
      settle: `the span ends when the callback returns and records no ack: trace.get_current_span().set_attribute("${SETTLE_ATTR}", "ack") before await message.ack()`,
    },
  },
  'ruby-bunny': {
    id: 'ruby-bunny',
    sdk: 'OpenTelemetry Bunny instrumentation (Ruby)',
    source:
      'opentelemetry-ruby-contrib instrumentation/bunny 0.25.0 (patch_helpers.rb, patches/channel.rb, patches/consumer.rb, patches/reader_loop.rb)',
    settle: 'none',
    fix: {
      event_id:
        "the instrumentation records no message id: in the subscribe block, OpenTelemetry::Trace.current_span.set_attribute('acktrail.event_id', properties.message_id); without it the journey is found by the publish's trace id",
      queue: `the process span carries no attributes: in the subscribe block, OpenTelemetry::Trace.current_span.set_attribute('${ATTR.queue}', queue.name)`,
      delivery_attempt: `in the subscribe block: OpenTelemetry::Trace.current_span.set_attribute('${REDELIVERED}', delivery_info.redelivered?)`,
      settle: `the process span ends when the block returns and records no ack: OpenTelemetry::Trace.current_span.set_attribute('${SETTLE_ATTR}', 'ack') before channel.ack(delivery_info.delivery_tag)`,
    },
  },
  masstransit: {
    id: 'masstransit',
    sdk: 'MassTransit 8 (ActivitySource MassTransit)',
    source:
      'MassTransit v8.5.8 src/MassTransit/Logging/Diagnostics (LogContextActivityExtensions.cs, DiagnosticHeaders.cs, StartedActivity.cs), Transports/ReceivePipeDispatcher.cs, RabbitMqTransport/RabbitMqReceiveLockContext.cs',
    settle: 'span-status',
    fix: {
      event_id:
        'MassTransit records its MessageId (messaging.masstransit.message_id, and messaging.message.id on the receive): nothing to add',
      queue: 'the receive activity names its endpoint, the queue (messaging.destination.name)',
      delivery_attempt: `MassTransit records no redelivered flag: in the consumer, Activity.Current?.Parent?.SetTag("${REDELIVERED}", context.ReceiveContext.Redelivered)`,
      settle:
        'the receive activity ends after the ack (status ok) or the nack with requeue (status error): nothing to add',
    },
  },
  unknown: {
    id: 'unknown',
    sdk: 'an instrumentation acktrail has no profile of',
    source: 'OpenTelemetry messaging semantic conventions (old and v1.43 names)',
    settle: 'none',
    fix: {
      event_id: `record the message id (messaging.message.id) or ${ATTR.eventId} on the publish and consumer spans`,
      queue: `name the queue on the consumer span: ${ATTR.queue}`,
      delivery_attempt: `record the broker's redelivered flag on the consumer span: ${REDELIVERED}`,
      settle: `record how the consumer settled: ${SETTLE_ATTR} (ack, nack, nack_requeue, reject) on the consumer span, or a settle span (messaging.operation.type settle)`,
    },
  },
};

/** An instrumentation's name as its users know it, from the id a step carries. */
export const sdkName = (id: string | null): string =>
  id !== null && id in PROFILES ? PROFILES[id as ProfileId].sdk : 'its instrumentation';
