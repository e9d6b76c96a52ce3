// The journey kinds, each with the one rule that decides it, in one place. The rules read the
// facts of the steps (facts.ts), the pipeline's rows where configured (pipeline-rows.ts) and what the
// broker does with a rejected message (QueueFacts), and the pipeline's result words only through
// what its configuration says they mean (results.ts).
// assemble.test.ts has each kind built from stock OpenTelemetry spans and from acktrail's.
import { ATTR } from '@acktrail/conventions';
import { STEP_ATTR } from './steps.js';
import type { CeleryTask } from './celery-task.js';
import type { PipelineRows } from './pipeline-rows.js';
import { dlqDelivery, type Delivery, type JourneyFacts, type QueueLookup } from './facts.js';
import type { Reason } from './reason.js';

export const JOURNEY_KINDS = [
  'delivered_once',
  'published_twice',
  'redelivered',
  'retried',
  'dead_lettered',
  'replayed',
  'discarded',
  'rejected',
  'unroutable',
  'stuck_in_outbox',
  'aggregate_missing',
  'duplicate_provider_call',
  'never_acked',
  'settle_not_recorded',
  'settle_inferred',
  'not_traced',
  'in_flight',
  'task_succeeded',
  'task_failed',
  'task_revoked',
  'task_rejected',
] as const;
export type JourneyKind = (typeof JOURNEY_KINDS)[number];

export interface KindOptions {
  nowMs: number;
  stuckAfterSeconds: number;
  unackedAfterSeconds: number;
  /** The aggregate status value that means the work failed for good, where one is configured. */
  failedStatus: string | null;
}

/** What the rules conclude, beyond the kinds themselves: the verdict reads it. */
export interface Classified {
  kinds: JourneyKind[];
  /** Published, not counting unroutable publishes. */
  publishes: number;
  redeliveries: Delivery[];
  retries: number;
  /** The delivery whose fate ended the message's way: dead-lettered, discarded or rejected. */
  end: Delivery | null;
  deadLetter: { reason: Reason } | null;
  /**
   * The last replay of the parked dead letter, by whom and when; `since` says whether it came
   * after the last dead-lettering (what followed it is the message's way now).
   */
  replay: { by: string; at: Date; since: boolean } | null;
  /** When the work was done: the result row, or the ack of the delivery that did it. */
  doneAt: Date | null;
  /** When the message's way ended with acks (the last delivery on every queue), done or not. */
  endedAt: Date | null;
  stuck: boolean;
  aggregateMissing: boolean;
  duplicateCall: boolean;
  neverAcked: boolean;
  /**
   * The last delivery on a queue whose end no span recorded and the broker did not show: how it
   * was settled is not known (fate unrecorded, or not_acked without its requeue flag).
   */
  unrecorded: Delivery[];
}

/** How often the message came again: redeliveries, and retries (one way or another). */
function repetitions(d: Delivery[], f: JourneyFacts) {
  // A message routed to several queues has a way through each: a delivery follows the one before
  // it on its own queue.
  const before = (i: number) => d.slice(0, i).findLast((x) => x.queue === d[i]!.queue);
  // redelivered: the broker's flag where it is recorded; without it, a delivery that follows one
  // that ended unsettled (its consumer's channel closed or failed) or came back unrecorded.
  const flagged = d.filter((x) => x.redelivered === true);
  const cameBack = (x: Delivery | undefined) => x?.fate === 'returned' || x?.fate === 'came_back';
  const redeliveries = flagged.length
    ? flagged
    : d.filter((x, i) => x.redelivered === null && cameBack(before(i)));
  // retried: publishes to a retry queue, an attempt number past 1, or a requeue that came back.
  const requeuedBack = d.filter((_, i) => before(i)?.fate === 'requeued').length;
  const maxAttempt = Math.max(1, ...d.map((x) => x.attempt ?? 1));
  const retries = Math.max(maxAttempt - 1, f.retryPublishes.length, requeuedBack);
  return { redeliveries, retries };
}

/**
 * dead_lettered / discarded / rejected: how the message's way ended. A consumer that publishes to
 * the dead-letter exchange itself says so (stage dead_letter); a delivery out of a dead-letter
 * queue confirms it, with x-death's reason; so does the aggregate's failed status. And the last
 * replay, with whether nothing dead-lettered the message again since.
 */
const UNKNOWN_REASON: Reason = { text: 'unknown', by: 'acktrail' };

function howItEnded(
  f: JourneyFacts,
  rows: PipelineRows | null,
  queues: QueueLookup,
  o: KindOptions,
) {
  const d = f.deliveries;
  const end = d.find((x) => ['dead_lettered', 'discarded', 'rejected'].includes(x.fate)) ?? null;
  const dlq = d.map((x) => dlqDelivery(x, queues)).find((x) => x !== null) ?? null;
  const deadLetterStep = f.deadLetterSteps.at(-1);
  const failed = o.failedStatus !== null && rows?.aggregate?.status === o.failedStatus;
  const deadLettered =
    deadLetterStep !== undefined || end?.fate === 'dead_lettered' || dlq !== null || failed;
  const replayStep = f.replays.at(-1);
  const replay = replayStep
    ? {
        by: String(replayStep.attrs[STEP_ATTR.replayBy] ?? 'unknown'),
        at: new Date(replayStep.timeUs / 1000),
        since:
          f.deadLetterSteps.every((s) => s.timeUs < replayStep.timeUs) &&
          !d.some((x) => x.step.timeUs > replayStep.timeUs && x.fate === 'dead_lettered'),
      }
    : null;
  const said = deadLetterStep?.attrs[ATTR.deadLetterReason];
  const reason: Reason | null = deadLetterStep
    ? said === undefined
      ? UNKNOWN_REASON
      : { text: String(said), by: 'span' }
    : (dlq?.reason ?? end?.reason ?? (failed ? { text: 'failed', by: 'acktrail' } : null));
  return { end, deadLetter: deadLettered ? { reason: reason ?? UNKNOWN_REASON } : null, replay };
}

/**
 * The message's way ended well when the last delivery on every queue was acked and no consumer
 * handed the message on (a retry, a dead letter) after it. The work is done when a result row
 * says so, or when it ended well and a delivery did the work (results.ts: its result word).
 */
function completion(f: JourneyFacts, lasts: Delivery[], rows: PipelineRows | null) {
  const handedOn = [...f.retryPublishes, ...f.deadLetterSteps].some((s) =>
    lasts.some((x) => s.timeUs >= x.step.timeUs),
  );
  // A settle's time: its step's, or where the ack was inferred, the delivery span's end.
  const at = (x: Delivery) => x.settle?.step.timeUs ?? x.settledAtUs;
  const settledAt = (xs: Delivery[]) => new Date(Math.max(...xs.map((x) => at(x)!)) / 1000);
  const ended =
    lasts.length > 0 && !handedOn && lasts.every((x) => x.fate === 'acked' && at(x) !== null);
  const endedAt = ended ? settledAt(lasts) : null;
  const doers = f.deliveries.filter((x) => x.done && at(x) !== null);
  const doneAt =
    rows?.result?.createdAt ??
    (ended && (doers.length > 0 || lasts.every((x) => x.meaning === 'done_before'))
      ? settledAt(doers.length > 0 ? doers : lasts)
      : null);
  return { endedAt, doneAt };
}

/** What the pipeline's rows and the last deliveries show went wrong, besides the message's end. */
function troubles(
  f: JourneyFacts,
  lasts: Delivery[],
  rows: PipelineRows | null,
  stepCount: number,
  o: KindOptions,
) {
  const stuck =
    rows?.outbox != null &&
    rows.outbox.publishedAt === null &&
    o.nowMs - rows.outbox.createdAt.getTime() > o.stuckAfterSeconds * 1000;
  // The aggregate's row was looked for (its id is known, its table configured) and is not there.
  const aggregateMissing =
    rows !== null && rows.aggregateRead && rows.aggregate === null && stepCount > 0;
  const duplicateCall =
    f.providerCalls.some((s) => s.attrs[ATTR.providerOutcome] === 'idempotent_replay') ||
    (rows?.attempts ?? []).some((a) => a.outcome === 'idempotent_replay');
  const neverAcked = lasts.some(
    (x) =>
      x.fate === 'returned' ||
      (x.fate === 'open' && o.nowMs - x.step.timeUs / 1000 > o.unackedAfterSeconds * 1000),
  );
  const unrecorded = lasts.filter((x) => x.fate === 'unrecorded' || x.fate === 'not_acked');
  return { stuck, aggregateMissing, duplicateCall, neverAcked, unrecorded };
}

/** The kinds, in the order a verdict names them; delivered_once or in_flight when none. */
function kindsOf(f: JourneyFacts, c: Omit<Classified, 'kinds' | 'publishes'>): JourneyKind[] {
  const kinds: JourneyKind[] = [];
  if (f.publishes.length > 1) kinds.push('published_twice');
  if (c.redeliveries.length > 0) kinds.push('redelivered');
  if (c.retries > 0) kinds.push('retried');
  if (c.deadLetter) kinds.push('dead_lettered');
  if (c.replay) kinds.push('replayed');
  else if (c.end?.fate === 'discarded') kinds.push('discarded');
  else if (c.end?.fate === 'rejected') kinds.push('rejected');
  if (f.unroutable.length > 0) kinds.push('unroutable');
  if (c.stuck) kinds.push('stuck_in_outbox');
  if (c.aggregateMissing) kinds.push('aggregate_missing');
  if (c.duplicateCall) kinds.push('duplicate_provider_call');
  if (c.neverAcked) kinds.push('never_acked');
  if (c.unrecorded.length > 0) kinds.push('settle_not_recorded');
  if (kinds.length === 0) kinds.push(c.doneAt || c.endedAt ? 'delivered_once' : 'in_flight');
  // A fate the broker's evidence or the consumer's spans decided where no span recorded it.
  if (f.deliveries.some((x) => x.evidence !== null)) kinds.push('settle_inferred');
  return kinds;
}

export function classify(
  f: JourneyFacts,
  rows: PipelineRows | null,
  queues: QueueLookup,
  stepCount: number,
  o: KindOptions,
): Classified {
  // The last delivery on each queue: the work is done when the last on every queue is.
  const lasts = [...new Map(f.deliveries.map((x) => [x.queue ?? '', x])).values()];
  const c = {
    ...repetitions(f.deliveries, f),
    ...howItEnded(f, rows, queues, o),
    ...completion(f, lasts, rows),
    ...troubles(f, lasts, rows, stepCount, o),
  };
  return { kinds: kindsOf(f, c), publishes: f.publishes.length, ...c };
}

/** A Celery task's final states, each the kind of its journey. */
const CELERY_FINAL_KIND = {
  SUCCESS: 'task_succeeded',
  FAILURE: 'task_failed',
  REVOKED: 'task_revoked',
  REJECTED: 'task_rejected',
} as const satisfies Partial<Record<CeleryTask['state'], JourneyKind>>;

/** The kinds of a Celery task's journey: its events say all of it (model/celery-task.ts). */
export function celeryKinds(
  task: Pick<CeleryTask, 'state' | 'retries' | 'redeliveries'>,
): JourneyKind[] {
  const kinds: JourneyKind[] = [];
  if (task.redeliveries) kinds.push('redelivered');
  if (task.retries.length) kinds.push('retried');
  const final = task.state in CELERY_FINAL_KIND ? task.state : null;
  kinds.push(final ? CELERY_FINAL_KIND[final as keyof typeof CELERY_FINAL_KIND] : 'in_flight');
  return kinds;
}
