// How a delivery ended where no span records it and the broker showed nothing of it (no later
// delivery, no dead letter: evidence.ts): what the broker did not see, and its counters, decide.
// Decided at every read from the evidence of that moment, so that a later fact (the message comes
// back, a dead letter turns up) wins at the next read and no stored verdict is rewritten.
//
// - The counters (the broker's per-queue delivered, acked and unacked, as acktrail read them:
//   journeys/store/queue-readings.ts): from the last reading before the delivery to the first
//   after its end at which nothing of the queue was unacked, the acks account for every delivery
//   (delivered + unacked before = acked): nothing was rejected, requeued or returned, so this
//   delivery was acked.
// - What the broker did not see: the queue's dead letters go where acktrail would see one (a
//   dead-letter queue it parks, or one a traced consumer reads), none came within the bound, the
//   message was not delivered again, and the queue later had nothing unacked with consumers
//   attached: it was not dead-lettered, not requeued, not held: acked.
// Where neither decides, the delivery says what the broker cannot tell apart, and what would.
import type { QueueFacts, QueueLookup } from '../../broker/topology.js';
import type { Delivery } from './delivery.js';
import { PROFILES, sdkName, type ProfileId } from '../profiles/index.js';

/** One reading of a queue's counters; a count is null where the broker gave none. */
export interface CounterReading {
  queue: string;
  atMs: number;
  delivered: number | null;
  acked: number | null;
  unacked: number | null;
  consumers: number | null;
}

/** Where a queue's dead letters would be seen, and by what. */
export interface WatchedDeadLetters {
  queue: string;
  by: 'parking' | 'traced';
}

/** What the read path knows beyond the steps, for the deliveries no span settled. */
export interface SettleEvidence {
  nowMs: number;
  /** How long after a delivery ends a dead letter or a redelivery is waited for (ms). */
  boundMs: number;
  /** The readings of the deliveries' queues around their times, in time order per queue. */
  readings: readonly CounterReading[];
  /** The dead-letter queue of a queue in which acktrail would see its dead letters; null: none. */
  watched: (queue: string) => WatchedDeadLetters | null;
  /**
   * The one queue the journey's publish reaches by the broker's bindings, for a delivery whose
   * span names none (Bunny's process span has no attributes); null where not one.
   */
  publishedTo?: string | null;
}

export const NO_SETTLE_EVIDENCE: SettleEvidence = {
  nowMs: Number.POSITIVE_INFINITY,
  boundMs: 0,
  readings: [],
  watched: () => null,
};

/** A reading this long after a delivery still closes its window (a quiet queue drains late). */
const MAX_WINDOW_MS = 15 * 60_000;
/**
 * How old the broker's counts can be when they are read: a queue emits its statistics every
 * collect_statistics_interval (5 s by default), and the management API and /metrics/detailed
 * serve the last emitted. A reading closes a window only this long after the delivery's end.
 */
export const COUNTS_LAG_MS = 10_000;

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

interface Window {
  from: CounterReading;
  to: CounterReading;
  delivered: number;
  acked: number;
  /** Deliveries the acks do not account for: rejected, requeued or returned (never below 0). */
  unaccounted: number;
}

/** The window from the last reading before `startMs` to the first drained one after `endMs`. */
function windowOf(readings: readonly CounterReading[], startMs: number, endMs: number) {
  const from = readings.findLast((r) => r.atMs <= startMs);
  const to = readings.find(
    (r) => r.atMs >= endMs + COUNTS_LAG_MS && r.atMs <= endMs + MAX_WINDOW_MS && r.unacked === 0,
  );
  const none = { from: from ?? null, to: to ?? null, counted: null, uncounted: false };
  if (!from || !to) return none;
  const counts = [from.delivered, from.acked, from.unacked, to.delivered, to.acked];
  if (counts.some((c) => c === null)) return none;
  const delivered = to.delivered! - from.delivered!;
  const acked = to.acked! - from.acked!;
  // Counters that went back (a broker restarted, a queue declared again) say nothing, nor a window
  // whose counts do not hold the delivery itself.
  if (delivered < 1 || acked < 0) return { ...none, uncounted: true };
  const counted: Window = {
    from,
    to,
    delivered,
    acked,
    unaccounted: Math.max(0, delivered + from.unacked! - acked),
  };
  return { from, to, counted, uncounted: false };
}

const silence = (d: Delivery) =>
  d.unknownSettle
    ? `${sdkName(d.sdk)} records the ${d.unknownSettle.operation}, not its requeue flag`
    : `${sdkName(d.sdk)} records no ack`;

/** What would turn the inference into a record, for this delivery's queue. */
function wouldTell(
  d: Delivery,
  queue: string,
  facts: QueueFacts | null,
  dlq: string | null,
): string {
  const record =
    d.sdk !== null && d.sdk in PROFILES
      ? PROFILES[d.sdk as ProfileId].fix.settle
      : PROFILES.unknown.fix.settle;
  const broker =
    facts?.deadLetterExchange === null
      ? `a dead-letter exchange on ${queue} with its queue parked by acktrail`
      : dlq !== null
        ? `parking ${dlq}, its dead-letter queue (deadLetters.queues)`
        : `parking its dead-letter queue (deadLetters.queues)`;
  return `${broker}, or the ack recorded: ${record}`;
}

/** Decides one open delivery, in place; leaves it open with words where nothing decides. */
function decide(d: Delivery, later: boolean, queues: QueueLookup, e: SettleEvidence): void {
  const startMs = d.step.timeUs / 1000;
  const endMs = (d.step.timeUs + d.step.durationUs) / 1000;
  const queue = d.queue ?? e.publishedTo ?? null;
  if (later || queue === null) return;
  if (e.nowMs < endMs + e.boundMs) {
    d.evidenceWords = `not decided yet: the broker's evidence is read for ${e.boundMs / 1000} s after the delivery`;
    return;
  }
  const facts = queues(queue);
  const readings = e.readings.filter((r) => r.queue === queue);
  const { to, counted, uncounted } = windowOf(readings, startMs, endMs);
  const watched = e.watched(queue);
  if (counted?.unaccounted === 0 && d.fate === 'unrecorded') {
    d.fate = 'acked';
    d.evidence = 'counters';
    d.settledAtUs = d.step.timeUs + d.step.durationUs;
    d.evidenceWords = `acked: the broker's counters of ${queue} account for every delivery from ${clock(counted.from.atMs)} to ${clock(counted.to.atMs)} (${counted.delivered} delivered, ${counted.acked} acked, nothing rejected, requeued or left unacked); ${silence(d)}`;
    return;
  }
  // No reading closes its window yet: the counters may still decide.
  if (to === null && e.nowMs < endMs + MAX_WINDOW_MS && readings.length > 0) {
    d.evidenceWords = `not decided yet: waiting for the broker's counters of ${queue} after it`;
    return;
  }
  const drained = to !== null && (to.consumers ?? 0) > 0;
  if (watched && drained && d.step.status !== 'error') {
    const none = `no dead letter in ${watched.queue} (${watched.by === 'parking' ? 'parked by acktrail' : 'read by a traced consumer'}) within ${e.boundMs / 1000} s, not delivered again, and ${queue} had nothing unacked at ${clock(to.atMs)} with ${to.consumers} consumer(s)`;
    d.evidence = 'no_dead_letter';
    if (d.fate === 'not_acked') {
      d.fate = 'requeued';
      d.evidenceWords = `requeued (not delivered again yet): ${none}; ${silence(d)}`;
    } else {
      d.fate = 'acked';
      d.settledAtUs = d.step.timeUs + d.step.durationUs;
      d.evidenceWords = `acked: ${none}; ${silence(d)}`;
    }
    return;
  }
  const apart = wouldTell(d, queue, facts, watched?.queue ?? null);
  // A recorded nack or reject was not an ack: whether it requeued is what is not known.
  const either = d.fate === 'not_acked' ? 'requeued or discarded' : 'acked or discarded';
  if (readings.length === 0)
    d.evidenceWords = `${either}: acktrail read no counters of ${queue} around ${clock(endMs)} (it reads them as /metrics is scraped, for queues whose consumers record no settle); ${apart} would tell`;
  else if (uncounted)
    d.evidenceWords = `${either}: the broker's counters of ${queue} do not count this delivery (they went back, or lag it), so they cannot tell; ${apart} would tell`;
  else if (counted === null && to !== null)
    d.evidenceWords = `${either}: the broker gives no delivery and ack counts for ${queue} (RabbitMQ 4 with its management statistics off and no /metrics/detailed queue_delivery_metrics); ${apart} would tell`;
  else if (counted === null)
    d.evidenceWords = `${either}: ${queue} never had nothing unacked in the ${MAX_WINDOW_MS / 60_000} min after it, so the broker cannot tell them apart; ${apart} would tell`;
  else
    d.evidenceWords = `${either}: the broker cannot tell them apart for ${queue} (${counted.unaccounted} of ${counted.delivered} deliveries from ${clock(counted.from.atMs)} to ${clock(counted.to.atMs)} were not acked); ${apart} would tell`;
}

/**
 * Settles, in place, what the counters or the broker's silence decide: the last open delivery of
 * each queue (fate unrecorded, or not_acked without its requeue flag) whose message was not
 * delivered again. A delivery followed by another of the message is settled by evidence.ts.
 */
export function inferSettles(deliveries: Delivery[], queues: QueueLookup, e: SettleEvidence): void {
  deliveries.forEach((d, i) => {
    if (d.fate !== 'unrecorded' && d.fate !== 'not_acked') return;
    const later = deliveries.slice(i + 1).some((x) => x.queue === d.queue);
    decide(d, later, queues, e);
  });
}
