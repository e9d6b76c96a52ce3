// What the broker showed of a message, where no span recorded how a delivery ended: a later
// delivery of the same message from the same queue (it came back: requeued, or its channel
// closed), a delivery out of a dead-letter queue, or dead-letter parking's record of it (x-death
// names the queue it was dead-lettered from). Only these settle a delivery whose instrumentation
// recorded nothing (fate `unrecorded`) or recorded a nack or reject without its requeue flag
// (`not_acked`); without them the journey says the settle is not recorded, never an ack.
import type { QueueLookup } from '../../broker/topology.js';
import type { Delivery } from './delivery.js';
import { parkedReason, type Reason } from './reason.js';
import type { SettleEvidence } from './inference.js';

/** A message dead-letter parking took from a dead-letter queue (exporter/src/deadletters/). */
export interface ParkedRecord {
  id: string;
  /** The dead-letter queue it was taken from. */
  queue: string;
  /** The queue it was dead-lettered from, by x-death's latest entry; null where none. */
  from: string | null;
  /** x-death's reason (rejected, expired, maxlen, delivery_limit) or a reason header's. */
  reason: string;
  /** Where the reason was read: a header's name, `x-death`, or `none`. */
  reasonSource: string;
  /** x-death's own reason of its latest entry, where the copy has one. */
  deathReason: string | null;
  /** parked, replaying, replayed, discarded, too_large, set_aside, unstorable. */
  state: string;
  parkedAt: Date;
}

/** What the broker showed of a journey's message, besides its spans. */
export interface BrokerEvidence {
  parked: readonly ParkedRecord[];
  /** Its counters and what it would have shown, for settles nothing else decides (inference.ts). */
  settle?: SettleEvidence;
}

export const NO_EVIDENCE: BrokerEvidence = { parked: [] };

/** A delivery whose end no span recorded: the broker may still say. */
const open = (d: Delivery) => d.fate === 'unrecorded' || d.fate === 'not_acked';

/**
 * Settles what the broker showed, in place. `publishes`: copies published (a delivery past the
 * first of each copy is a redelivery). A queue's deliveries are in time order.
 */
export function applyBrokerEvidence(
  deliveries: Delivery[],
  publishes: number,
  queues: QueueLookup,
  broker: BrokerEvidence,
): void {
  const copies = Math.max(1, publishes);
  const byQueue = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    const key = d.queue ?? '';
    byQueue.set(key, [...(byQueue.get(key) ?? []), d]);
  }
  // A later delivery from the same queue, past one per copy: an earlier one came back.
  for (const list of byQueue.values()) {
    const waiting: Delivery[] = [];
    list.forEach((d, i) => {
      if (i >= copies || d.redelivered === true) {
        const back = waiting.shift();
        if (back) {
          back.fate = back.fate === 'not_acked' ? 'requeued' : 'came_back';
          back.evidence = 'later_delivery';
        }
      }
      if (open(d)) waiting.push(d);
    });
  }
  // Out of a dead-letter queue, or parked: the last open delivery on the queue it came from.
  const fromDlq = (x: Delivery) => x.queue !== null && queues(x.queue)?.role === 'dead_letter';
  const deadLettered = (
    from: string | null,
    atUs: number,
    reason: Reason | null,
    evidence: Delivery['evidence'],
  ) => {
    const d = deliveries.findLast(
      (x) =>
        open(x) &&
        !fromDlq(x) &&
        x.step.timeUs <= atUs &&
        (from === null || x.queue === null || x.queue === from),
    );
    if (!d) return;
    d.fate = 'dead_lettered';
    d.reason = reason ?? d.reason;
    d.evidence = evidence;
  };
  for (const p of broker.parked)
    deadLettered(
      p.from,
      p.parkedAt.getTime() * 1000,
      parkedReason(p.reason, p.reasonSource),
      'parking',
    );
  for (const d of deliveries)
    if (fromDlq(d)) deadLettered(null, d.step.timeUs, null, 'dead_letter_queue');
}
