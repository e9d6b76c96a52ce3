// The settles the broker's evidence decided where no span recorded one (model/evidence.ts,
// model/inference.ts) and the consumer's own spans where its framework moved a faulted message:
// each marked as inferred, with what showed it and whose instrumentation records no settle, so
// that support reads "dead-lettered: x-death on the parked copy" or "acked: the broker's counters
// account for every delivery" and never mistakes either for a span's word.
import type { Delivery, Evidence } from '../model/delivery.js';
import { sdkName } from '../model/index.js';

export interface InferredSettle {
  /** The delivery (its span) whose end was inferred. */
  spanId: string;
  queue: string | null;
  /** acked, dead_lettered, requeued, discarded, came_back. */
  fate: string;
  evidence: Evidence;
  /** What was inferred, from what, and what the instrumentation does not record. */
  words: string;
}

const EVIDENCE: Record<'parking' | 'dead_letter_queue' | 'later_delivery', string> = {
  parking: 'x-death on the parked copy',
  dead_letter_queue: 'a delivery out of its dead-letter queue',
  later_delivery: 'delivered again from the same queue',
};

const FATE: Record<string, string> = {
  dead_lettered: 'dead-lettered',
  requeued: 'requeued',
  came_back: 'came back (requeued, or its channel closed)',
};

export function inferredSettles(deliveries: readonly Delivery[]): InferredSettle[] {
  return deliveries.flatMap((d) => {
    if (d.evidence === null || (d.settle !== null && d.evidence !== 'spans')) return [];
    const silent = d.unknownSettle
      ? `${sdkName(d.sdk)} records the ${d.unknownSettle.operation}, not its requeue flag`
      : `${sdkName(d.sdk)} records no settle`;
    const words =
      d.evidenceWords ??
      `${FATE[d.fate] ?? d.fate}: ${EVIDENCE[d.evidence as keyof typeof EVIDENCE]}${d.queue ? ` (from ${d.queue})` : ''}; ${silent}`;
    return [{ spanId: d.step.spanId, queue: d.queue, fate: d.fate, evidence: d.evidence, words }];
  });
}
