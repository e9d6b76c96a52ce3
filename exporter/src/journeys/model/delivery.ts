// One delivery of a message as the journey model reads it: its settle, what became of the message
// after it (its fate), and what decided that (a span, or the broker's evidence: evidence.ts).
import type { SettleOutcome } from '@acktrail/conventions';
import type { StoredRow } from './steps.js';
import type { ResultMeaning } from './results.js';
import type { SettleRecording } from './settle.js';
import type { Fate } from './fate.js';
import type { Reason } from './reason.js';

/** What decided a fate no span recorded (Delivery.evidence). */
export type Evidence =
  'later_delivery' | 'dead_letter_queue' | 'parking' | 'counters' | 'no_dead_letter' | 'spans';

export interface Delivery {
  step: StoredRow;
  queue: string | null;
  settle: { outcome: SettleOutcome; step: StoredRow } | null;
  /** A settle span that names a nack or reject, not its requeue flag (the Java agent's). */
  unknownSettle: { operation: 'nack' | 'reject'; step: StoredRow } | null;
  fate: Fate;
  /**
   * What decided the fate where no span did: a later delivery of the message, a delivery out of a
   * dead-letter queue, dead-letter parking's record (evidence.ts); what the broker did not see or
   * its counters (inference.ts); the consumer's own spans (MassTransit's fault path); null: a
   * span recorded it, or nothing decided it.
   */
  evidence: Evidence | null;
  /** The evidence in words, where inference.ts decided the fate or says why nothing could. */
  evidenceWords: string | null;
  /** When it was settled, where no settle step says so (an inferred ack: the span's end). */
  settledAtUs: number | null;
  /** How its instrumentation records settles; null where the step does not say (older rows). */
  recording: SettleRecording | null;
  /** The instrumentation that wrote the delivery (journeys/profiles/), where the step says. */
  sdk: string | null;
  /** Why the broker dead-lettered or dropped it after this delivery, and who said so, where known. */
  reason: Reason | null;
  /** The broker's redelivered flag; null when the instrumentation does not record it. */
  redelivered: boolean | null;
  attempt: number | null;
  /** The consumer's own word for what it did (acktrail.result), if it said. */
  result: string | null;
  /** What that word means (journeys.words.results). */
  meaning: ResultMeaning;
  /** This delivery did the event's work: acked, with a result that says so (results.ts). */
  done: boolean;
}
