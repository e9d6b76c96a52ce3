// The amqplib instrumentation (opentelemetry-js-contrib): the consumer span ends on the settle,
// its status saying which; the process span is named by its queue.
import { ATTR, type SettleOutcome } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
import type { ReceivedSpan } from '../span.js';
const REDELIVERED = ATTR.redelivered;

/**
 * How the stock amqplib instrumentation ended a consumer span: the settle it stands for, or null
 * when the message was not settled by this delivery (channel closed or failed, the
 * instrumentation's own timeout). Its ERROR statuses are written by nack and reject only; an
 * ack leaves the status as the handler set it.
 */
function endedBy(span: ReceivedSpan): SettleOutcome | null {
  if (span.statusCode !== 2) return 'ack';
  const m = /^(nack|nackAll|reject) called on message(?: (with|without) requeue)?$/.exec(
    span.statusMessage,
  );
  if (m) {
    // amqplib's nack and reject requeue unless told not to.
    if (m[2] !== 'without') return 'nack_requeue';
    return m[1] === 'reject' ? 'reject' : 'nack';
  }
  if (/^(channel closed|channel error)$|^instrumentation timeout/.test(span.statusMessage))
    return null;
  return 'ack';
}

export const nodeAmqplib: ProfileModule = {
  profile: {
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
  wrote: (span) => span.scope.name === '@opentelemetry/instrumentation-amqplib',
  where: (where, { deliver, processName }) =>
    deliver && where.queue === null ? { ...where, queue: processName } : where,
  endedBy,
};
