// A journey: the stored steps of one event and the pipeline's rows, on one time line, with the
// gaps between them, its kinds (the journey model, ../model/: every rule in one place) and a one-line verdict
// (verdict.ts). Steps come from several services whose clocks differ: a wait that comes out
// negative is never shown as such; it is reported as clock skew instead.
import { inferredSettles, type InferredSettle } from './inferred.js';
import { ATTR } from '@acktrail/conventions';
import {
  NO_EVIDENCE,
  NO_RESULT_WORDS,
  classify,
  factsOf,
  sdkName,
  type BrokerEvidence,
  type Delivery,
  type JourneyKind,
  type KindOptions,
  type ReasonBy,
} from '../model/index.js';
import type { QueueLookup } from '../../broker/topology.js';
import type { PipelineRows } from '../model/pipeline-rows.js';
import { buildTimeline, type TimelineEntry } from './timeline.js';
import { verdictOf, type Words } from './verdict.js';
import { reasonWords } from './quote.js';
import type { StoredRow } from '../model/steps.js';

export { JOURNEY_KINDS, type JourneyKind } from '../model/index.js';
export type { TimelineEntry };

export interface Journey {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  verdict: string;
  kinds: JourneyKind[];
  publishes: number;
  deliveries: number;
  retries: { count: number; delaysMs: number[] };
  /**
   * Why it was dead-lettered: `reason` as given, `saidBy` who gave it (acktrail, the broker's
   * x-death, a consumer's span, a header of the message, then `header` names it), and `words`:
   * the reason as the verdict says it (a quotation with its speaker, unless acktrail's or the
   * broker's own word).
   */
  deadLetter: { reason: string; saidBy: ReasonBy; header?: string; words: string } | null;
  attempts: {
    attempt: number;
    outcome: string;
    statusCode: number | null;
    at: string;
    durationMs: number;
  }[];
  traceIds: string[];
  timeline: TimelineEntry[];
  /** What could not be read beside the steps (a reader's missing table, the database away). */
  notes: string[];
  /** Settles no span recorded, decided by the broker's evidence: marked inferred, with it. */
  inferred: InferredSettle[];
}

export interface AssembleOptions extends Omit<KindOptions, 'nowMs'> {
  words: Words;
  /** What the broker does with a rejected message on a queue; null when not known. */
  queues: QueueLookup;
}

/** What no span recorded of a delivery's end, and what the broker showed instead, in words. */
function settleNote(d: Delivery): string | null {
  const by = sdkName(d.sdk);
  const shown =
    d.evidence === 'later_delivery'
      ? 'delivered again'
      : d.evidence === 'parking'
        ? 'dead-lettered, parked'
        : d.evidence === 'dead_letter_queue'
          ? 'dead-lettered'
          : d.evidence === 'counters'
            ? 'acked, inferred from its counters'
            : d.evidence === 'no_dead_letter'
              ? `${d.fate === 'requeued' ? 'requeued' : 'acked'}, inferred: no dead letter, not delivered again`
              : null;
  if (d.evidence === 'spans') return "dead-lettered, inferred from its handler's fault";
  if (d.unknownSettle)
    return `${d.unknownSettle.operation}, requeue not recorded by ${by}${shown ? `; the broker: ${shown}` : ''}`;
  if (d.fate === 'unrecorded' || (d.evidence !== null && d.settle === null))
    return `settle not recorded by ${by}${shown ? `; the broker: ${shown}` : ''}`;
  return null;
}

/** The deliveries' entries say where their settle is unknown (the step is never an ack). */
function withSettleNotes(timeline: TimelineEntry[], deliveries: Delivery[]): TimelineEntry[] {
  const notes = new Map(deliveries.map((d) => [d.step.spanId, settleNote(d)]));
  return timeline.map((e) => {
    const note = e.stage === 'deliver' && e.spanId ? notes.get(e.spanId) : null;
    return note ? { ...e, note: e.note ? `${e.note}; ${note}` : note } : e;
  });
}

export function assemble(
  eventId: string,
  steps: StoredRow[],
  rows: PipelineRows | null,
  opts: AssembleOptions & { nowMs: number; broker?: BrokerEvidence },
): Journey {
  const facts = factsOf(
    steps,
    opts.queues,
    opts.words.results ?? NO_RESULT_WORDS,
    opts.broker ?? NO_EVIDENCE,
  );
  const c = classify(facts, rows, opts.queues, steps.length, opts);
  const aggregateId =
    rows?.outbox?.aggregateId ?? steps.find((s) => s.aggregateId)?.aggregateId ?? null;
  const aggregateType = steps.find((s) => s.aggregateType)?.aggregateType ?? null;
  return {
    eventId,
    aggregate: aggregateId ? { type: aggregateType, id: aggregateId } : null,
    verdict: verdictOf(facts, c, rows, opts.words, opts.nowMs),
    kinds: c.kinds,
    publishes: c.publishes,
    deliveries: facts.deliveries.length,
    retries: {
      count: c.retries,
      delaysMs: facts.retryPublishes
        .map((s) => Number(s.attrs[ATTR.retryDelayMs]))
        .filter((n) => Number.isFinite(n)),
    },
    deadLetter: c.deadLetter && {
      reason: c.deadLetter.reason.text,
      saidBy: c.deadLetter.reason.by,
      ...(c.deadLetter.reason.header ? { header: c.deadLetter.reason.header } : {}),
      words: reasonWords(c.deadLetter.reason),
    },
    attempts: (rows?.attempts ?? []).map((a) => ({
      attempt: a.attempt,
      outcome: a.outcome,
      statusCode: a.statusCode,
      at: a.createdAt.toISOString(),
      durationMs: Math.round(a.durationSeconds * 1000),
    })),
    traceIds: [...new Set(steps.map((s) => s.traceId))],
    timeline: withSettleNotes(buildTimeline(steps, rows), facts.deliveries),
    notes: rows?.notes ?? [],
    inferred: inferredSettles(facts.deliveries),
  };
}
