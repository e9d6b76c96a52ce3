// Why a message was dead-lettered or dropped, and who said so. acktrail's own decision (a reject
// past a delivery limit), the broker's word (x-death's reason, read from a parked copy or relayed
// by a span), a consumer's span (acktrail.dead_letter.reason) or a header of the message (the
// reason headers dead-letter parking reads) are not the same speaker: a header is whatever its
// publisher wrote ("refund approved, see https://…"), so anything but the broker's own words is
// shown as a quote of who said it, never as acktrail's verdict (assemble/verdict.ts says it).

/** Who gave a reason. */
export type ReasonBy = 'acktrail' | 'broker' | 'span' | 'header';

export interface Reason {
  text: string;
  by: ReasonBy;
  /** The header it was read from (by `header`). */
  header?: string;
}

/**
 * x-death's reasons, as RabbitMQ writes them, and the fault transports' names acktrail's profiles
 * give (MassTransit's `_error` and `_skipped` queues): the only words said as they are.
 */
export const BROKER_REASONS: ReadonlySet<string> = new Set([
  'rejected',
  'expired',
  'maxlen',
  'delivery_limit',
  'fault',
  'skipped',
]);

/** The reason of a parked copy: the header dead-letter parking read it from, or x-death's. */
export function parkedReason(text: string, source: string): Reason {
  if (source === 'x-death') return { text, by: 'broker' };
  if (source === 'none') return { text, by: 'acktrail' };
  return { text, by: 'header', header: source };
}

/** Whether a reason is acktrail's or the broker's own word (shown as is, not as a quote). */
export const isOwnWord = (r: Reason): boolean =>
  r.by === 'acktrail' || (r.by !== 'header' && BROKER_REASONS.has(r.text));
