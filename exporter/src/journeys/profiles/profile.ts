// What a profile is: the facts of one instrumentation (who it is, where its shape was read, how it
// records a settle, what closes each gap it leaves) and the hooks that read its spans where it
// departs from the messaging semantic conventions (read.ts applies them; semconv.ts is the rest).
// Each instrumentation is one folder beside this file, registered in registry.ts.
import { SDK_PROFILES, type SettleOutcome } from '@acktrail/conventions';
import type { AttributeValue, ReceivedSpan } from './span.js';
import type { SpanStage } from './semconv.js';

export const PROFILE_IDS = SDK_PROFILES;
export type ProfileId = (typeof PROFILE_IDS)[number];

/**
 * How an instrumentation records a delivery's settle (each profile says which it does),
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

/** The gaps a profile can leave, each with the line of application code that closes it. */
export const GAPS = ['event_id', 'queue', 'delivery_attempt', 'settle'] as const;
export type Gap = (typeof GAPS)[number];

export interface Profile {
  id: ProfileId;
  /** The instrumentation as its users name it. */
  sdk: string;
  /** Where its shape was read: repository, tag, files. */
  source: string;
  settle: SettleRecording;
  /** What closes each gap, for this SDK: one line. */
  fix: Record<Gap, string>;
}

/** Where a message went, as a span names it (null: the span does not say). */
export interface Where {
  exchange: string | null;
  routingKey: string | null;
  queue: string | null;
  /** A name that is the exchange, or the queue when the default exchange was used (Python's). */
  exchangeOrQueue: string | null;
}

/** What the conventions read of a publish or delivery, for a profile's `where` to correct. */
export interface WhereContext {
  span: ReceivedSpan;
  deliver: boolean;
  /** The destination attribute, old or v1.43 name. */
  destination: string | null;
  routingKey: string | null;
  /** acktrail's own queue attribute. */
  named: string | null;
  /** "<name> process": the name, else null. */
  processName: string | null;
}

/** A dead-letter step's facts the span's shape tells (MassTransit's move to "<queue>_error"). */
export interface ParkedReading {
  reason: string;
  /** The queue the message left. */
  queue: string;
}

/** One instrumentation: its facts, and how its spans depart from the conventions. */
export interface ProfileModule {
  profile: Profile;
  /** Whether this instrumentation wrote the span: its scope, or attributes only it writes. */
  wrote(span: ReceivedSpan): boolean;
  /** The journey stage, given the conventions' reading of it (the default). */
  stage?(span: ReceivedSpan, semconv: (span: ReceivedSpan) => SpanStage | null): SpanStage | null;
  /** Where the message went, given the conventions' reading (the default). */
  where?(where: Where, context: WhereContext): Where;
  /** A settle span's operation where the name says it and no attribute does (ack, nack, reject). */
  settleOperation?(span: ReceivedSpan): string | null;
  /** A `span-end` profile's settle, from how the consumer span ended (null: not settled). */
  endedBy?(span: ReceivedSpan): SettleOutcome | null;
  /** The event id, where the standard attributes carry none and this SDK writes its own. */
  eventId?(attributes: Map<string, AttributeValue>): AttributeValue | undefined;
  /** A handler span inside a delivery (MassTransit's process): not a delivery itself. */
  handler?(span: ReceivedSpan): boolean;
  /** A dead-letter step's reason and queue, where the span's shape tells them. */
  parked?(span: ReceivedSpan, stage: SpanStage | null): ParkedReading | null;
}
