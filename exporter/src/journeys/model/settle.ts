// How a delivery was settled, whichever instrumentation recorded it: acktrail's settle outcome
// (SETTLE_OUTCOMES), or the status with which the stock amqplib instrumentation ends a consumer
// span (an ack leaves it unset; "nack called on message without requeue" and the like).
import { ATTR, SETTLE_OUTCOMES, type SettleOutcome } from '@acktrail/conventions';

const SETTLES = new Set<string>(SETTLE_OUTCOMES);

/** The outcome a step's attributes name, or null. */
export function outcomeOf(attrs: Readonly<Record<string, unknown>>): SettleOutcome | null {
  const o = attrs[ATTR.settleOutcome];
  return typeof o === 'string' && SETTLES.has(o) ? (o as SettleOutcome) : null;
}

/**
 * How the stock amqplib instrumentation ended a consumer span: the settle it stands for, or null
 * when the message was not settled by this delivery (channel closed or failed, the
 * instrumentation's own timeout). Its ERROR statuses are written by nack and reject only; an
 * ack leaves the status as the handler set it.
 */
export function settleFromStatus(span: {
  statusCode: number;
  statusMessage: string;
}): SettleOutcome | null {
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
