// Spring AMQP's observation through Micrometer Tracing's OpenTelemetry bridge: the listener span
// names its queue; the container acks after the listener returns, outside any span.
import { ATTR } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

export const springAmqp: ProfileModule = {
  profile: {
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
  wrote: (span) =>
    span.attributes.has('spring.rabbit.listener.id') ||
    span.attributes.has('spring.rabbit.template.name'),
  // The listener's destination is its queue; the template's, the exchange.
  where: (where, { deliver, destination, named }) =>
    deliver ? { ...where, exchange: null, queue: named ?? destination } : where,
};
