// The pika instrumentation (opentelemetry-python-contrib): its destination is the exchange, or the
// routing key on the default exchange; the span ends when the callback returns.
import { ATTR } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

export const pythonPika: ProfileModule = {
  profile: {
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
  wrote: (span) => span.scope.name.startsWith('opentelemetry.instrumentation.pika'),
  // "exchange if exchange else routing_key": the exchange, or the queue on the default one.
  where: (where, { destination }) => ({ ...where, exchange: null, exchangeOrQueue: destination }),
};
