// A framework's own fault path, read from its spans: MassTransit (RabbitMqErrorTransport, v8.5.8)
// moves a message its consumer threw on to "<queue>_error" by publishing on the channel (no send
// activity of its own), then completes the receive: the receive activity ends ok, as after any ack.
// Its handler's activity inside the receive ("<endpoint> process") ended in error with the
// exception's message. Such a delivery was dead-lettered into the fault queue, inferred from the
// spans, with the exception's message as its reason (the consumer's span says it).
import type { Delivery } from './delivery.js';
import { STEP_ATTR, type StoredRow } from './steps.js';

/**
 * Marks, in place, each delivery whose receive ended ok after its last handler span ended in
 * error. `spans`: every delivery span id -> its outer delivery's step (facts.ts).
 */
export function applyFaultPath(
  deliveries: Delivery[],
  delivers: readonly StoredRow[],
  spans: ReadonlyMap<string, StoredRow>,
): void {
  const handlers = delivers.filter((s) => s.attrs[STEP_ATTR.handler] === true);
  if (handlers.length === 0) return;
  for (const d of deliveries) {
    if (d.recording !== 'span-status' || d.fate !== 'acked') continue;
    const last = handlers.filter((h) => h !== d.step && spans.get(h.spanId) === d.step).at(-1);
    if (last?.status !== 'error') continue;
    d.fate = 'dead_lettered';
    d.evidence = 'spans';
    d.reason = { text: last.statusMessage || 'the consumer faulted', by: 'span' };
    d.evidenceWords = `dead-lettered: its handler threw, and MassTransit's fault path moved it to ${d.queue ?? '<queue>'}_error, then completed the receive (no span records the move)`;
  }
}
