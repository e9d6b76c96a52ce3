// The aio-pika instrumentation (opentelemetry-python-contrib): a publish names "<exchange>,<key>",
// a delivery the exchange or, on the default exchange, the queue.
import { ATTR } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

export const pythonAioPika: ProfileModule = {
  profile: {
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
  wrote: (span) => span.scope.name.startsWith('opentelemetry.instrumentation.aio_pika'),
  where(where, { deliver, destination, routingKey }) {
    if (!deliver && destination !== null && destination.includes(',')) {
      const at = destination.indexOf(',');
      return {
        ...where,
        exchange: destination.slice(0, at),
        routingKey: routingKey ?? destination.slice(at + 1),
      };
    }
    return { ...where, exchange: null, exchangeOrQueue: destination };
  },
};
