// How a delivery was settled, whichever instrumentation recorded it: the settle outcome a step
// carries (SETTLE_OUTCOMES), written from what its span records (profiles/ read each SDK's).
import { ATTR, SETTLE_OUTCOMES, type SettleOutcome } from '@acktrail/conventions';

export { SETTLE_RECORDINGS, type SettleRecording } from '../profiles/index.js';

const SETTLES = new Set<string>(SETTLE_OUTCOMES);

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
