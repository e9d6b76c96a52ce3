// How a delivery was settled, whichever instrumentation recorded it: acktrail's settle outcome
// (SETTLE_OUTCOMES), or the status with which the stock amqplib instrumentation ends a consumer
// span (an ack leaves it unset; "nack called on message without requeue" and the like).
import { ATTR, SETTLE_OUTCOMES, type SettleOutcome } from '@acktrail/conventions';

const SETTLES = new Set<string>(SETTLE_OUTCOMES);

/**
 * How an instrumentation records a delivery's settle (journeys/spans/profiles/ says which does which),
 * stored on each delivery step so that a missing settle is told from one nothing records:
 * - `span-end`: the consumer span ends on the settle, its status saying which (amqplib);
 * - `settle-spans`: every settle is a span of its own (acktrail's): none yet, none happened;
 * - `settle-spans-in-handler`: a settle is a child span when the handler settles on its own
 *   thread (the Java agent's basic.ack): none may mean one made elsewhere;
 * - `span-status`: the consumer span ends after the settle, its status saying which: ok an ack,
 *   error a nack with requeue (MassTransit's receive activity);
 * - `none`: the consumer span ends when the handler returns; the handler settles unseen.
 */
export const SETTLE_RECORDINGS = [
  'span-end',
  'span-status',
  'settle-spans',
  'settle-spans-in-handler',
  'none',
] as const;
export type SettleRecording = (typeof SETTLE_RECORDINGS)[number];

/** A settle step that names its operation, not its requeue flag (the Java agent's basic.nack). */
export function requeueUnknown(attrs: Readonly<Record<string, unknown>>): 'nack' | 'reject' | null {
  if (outcomeOf(attrs) !== null) return null;
  const op = attrs['messaging.operation.name'];
  return op === 'nack' || op === 'reject' ? op : null;
}

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
