// The read path of journeys: one service between the API's handlers and the store (Jaeger's query
// service is the model). get(id) finds a journey by what support has in hand (an event id, a
// trace id, a message id, a message's trace-context key), follows the message's spans across
// journey keys (a span without an event id is keyed by its message's trace context:
// journeys/spans/message-keys.ts), reads the pipeline's rows and dead-letter parking's records of it, and
// assembles it. list(query) pages through journeys (journeys/lists.ts). Handlers validate and
// reply; the store only stores.
import { assemble, type AssembleOptions, type Journey } from './assemble/assemble.js';
import type { PipelineRowsReader } from './model/pipeline-rows.js';
import { CONTEXT_KEY, TRACE_ID, contextKey } from './model/keys.js';
import { listJourneys, type JourneyPage, type ListQuery } from './lists.js';
import {
  NO_RESULT_WORDS,
  findOrdering,
  type CounterReading,
  type OrderingFinding,
  type ParkedRecord,
  type SettleEvidence,
  type WatchedDeadLetters,
} from './model/index.js';
import { leavesSettle } from './settle-watch.js';
import type { Reader, StepReads, TraceStep } from './store/index.js';
import { JourneySearch, type SearchOptions, type SearchPage, type SearchQuery } from './search.js';
import { ATTR, SEMCONV, isPublish } from '@acktrail/conventions';
import { untracedVerdict, type KnownFrom } from './assemble/untraced.js';
import { STEP_ATTR, type StoredRow } from './model/steps.js';

/** What an id was found as. */
export type MatchedBy = 'event_id' | 'trace_id' | 'message_id' | 'message_key';

/** A message dead-letter parking took, as a journey shows it (deadletters/ reads it). */
export interface ParkedMessage {
  id: string;
  /** The dead-letter queue it was taken from. */
  queue: string;
  /** The journey keys parking knew it by: its message id, its trace context. */
  eventId: string | null;
  messageKey: string | null;
  /** The queue it was dead-lettered from (x-death's latest entry). */
  from: string | null;
  /** The reason, as read from `reasonSource`: a header's name, `x-death` or `none`. */
  reason: string;
  reasonSource: string;
  /** x-death's own reason (its latest entry), where the copy has one. */
  deathReason: string | null;
  /** parked, replaying, replayed, discarded, too_large, set_aside, unstorable. */
  state: string;
  stateAt: string;
  parkedAt: string;
  replays: number;
}

/** A journey as the read path answers it. */
export interface ReadJourney<C> extends Journey {
  /** A Celery task's journey (its steps come from Celery's events); null for other events. */
  celery: C | null;
  /** Departures from the aggregate's version order that concern this event. */
  ordering: OrderingFinding[];
  /** What the id asked for was found as: the event id itself, a trace id, a message id. */
  matched: { by: MatchedBy; value: string };
  /** Its messages that dead-letter parking took from a dead-letter queue, oldest first. */
  parked: ParkedSummary[];
  /**
   * Whether any span of it reached acktrail. False: it is known only from `knownFrom` (no trace
   * was recorded: sampled out, or its service not instrumented), and the verdict says so.
   */
  traced: boolean;
  knownFrom: KnownFrom[];
}

export type Found<C> =
  | { kind: 'journey'; journey: ReadJourney<C> }
  /** The id matched several journeys (a trace that carried several messages). */
  | { kind: 'several'; matched: MatchedBy; ids: string[] }
  | { kind: 'not_found' };

/** The broker's evidence for the settles no span records (model/inference.ts). */
export interface SettleSources {
  /** The counters of these queues from `fromMs` to `toMs` (journeys/store/queue-readings.ts). */
  readings: (queues: string[], fromMs: number, toMs: number) => Promise<CounterReading[]>;
  watched: (queue: string) => WatchedDeadLetters | null;
  /** The queues a publish to `exchange` with `key` reaches by the broker's bindings. */
  route: (exchange: string, key: string | null) => string[];
  /** How long after a delivery a dead letter or a redelivery is waited for (ms). */
  boundMs: number;
}

export interface JourneyServiceOptions<C> {
  queries: StepReads;
  /** What decides settles no span records; null: nothing (they stay "not recorded"). */
  settle?: SettleSources | null;
  pipeline: PipelineRowsReader | null;
  /** Dead-letter parking's records of these journey keys; null: parking is off. */
  parked: ((ids: string[]) => Promise<ParkedMessage[]>) | null;
  /**
   * A Celery task's journey, where the steps are a task's events (assemble/celery.ts); null where
   * they are not.
   */
  celery: (root: string, steps: StoredRow[]) => Promise<(Journey & { celery: C }) | null>;
  assemble: Omit<AssembleOptions, 'nowMs'>;
  /** How far back lists search: the store's retention (nothing older is kept). */
  retentionDays: number;
  /** The journeys read reads lists and searches from (the replica where there is one). */
  reader?: Reader;
  /** Dead-letter parking's journeys of a reason group (search.ts); null: parking is off. */
  parkedOfGroup?: SearchOptions['parkedOfGroup'];
}

/** Readings read before and after a journey's deliveries: their windows' ends (inference.ts). */
const WINDOW_MARGIN_MS = 16 * 60_000;

/** Keys followed per hop of one journey: a message has one publish and a few deliveries. */
const MAX_KEYS = 50;

const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** The keys a journey's steps lead to: their messages' keys, and their deliveries' own context. */
function keysOf(steps: readonly StoredRow[], seen: Set<string>): string[] {
  const out = new Set<string>();
  for (const s of steps) {
    const key = str(s.attrs[STEP_ATTR.messageKey]);
    if (key !== null) out.add(key);
    if (s.stage === 'deliver') out.add(contextKey(s.traceId, s.spanId));
  }
  return [...out].filter((k) => !seen.has(k)).slice(0, MAX_KEYS);
}

/**
 * The journeys a trace's steps belong to: a step keyed by a delivery's own context (a settle
 * span without an event id) belongs to that delivery's journey; a message key that a journey's
 * steps carry belongs to that journey.
 */
export function rootsOf(traceId: string, rows: readonly TraceStep[]): Map<string, string> {
  const owner = new Map<string, string>();
  for (const r of rows) {
    if (r.stage === 'deliver') owner.set(contextKey(traceId, r.spanId), r.eventId);
    if (r.messageKey !== null && r.messageKey !== r.eventId) owner.set(r.messageKey, r.eventId);
  }
  const rootOf = (id: string) => {
    let root = id;
    for (let i = 0; i < 8 && owner.has(root) && owner.get(root) !== root; i++)
      root = owner.get(root)!;
    return root;
  };
  return new Map(rows.map((r) => [r.eventId, rootOf(r.eventId)]));
}

export class JourneyService<C> {
  private readonly searching: JourneySearch | null;

  constructor(private readonly o: JourneyServiceOptions<C>) {
    this.searching = o.reader
      ? new JourneySearch({
          reader: o.reader,
          get: (id) => this.get(id),
          pipeline: o.pipeline,
          stuckAfterSeconds: o.assemble.stuckAfterSeconds,
          parkedOfGroup: o.parkedOfGroup ?? null,
        })
      : null;
  }

  /** Journeys found by what they are, not their id (search.ts). */
  search(q: SearchQuery): Promise<SearchPage | { refused: string }> {
    if (!this.searching) return Promise.resolve({ refused: 'searching needs the journey store' });
    return this.searching.search(q);
  }

  /** One page of a list of journeys (journeys/lists.ts). */
  list(q: ListQuery): Promise<JourneyPage> {
    const { queries, pipeline, retentionDays, assemble } = this.o;
    return listJourneys(
      {
        queries,
        pipeline,
        retentionDays,
        stuckAfterSeconds: assemble.stuckAfterSeconds,
        results: assemble.words.results,
      },
      q,
    );
  }

  /** The journey of an event id, trace id, message id or message key. */
  async get(id: string): Promise<Found<C>> {
    if (CONTEXT_KEY.test(id)) {
      const roots = rootsOf(id.slice(0, 32), await this.o.queries.ofTrace(id.slice(0, 32)));
      const root = roots.get(id) ?? id;
      if (root !== id) return this.journey(root, 'message_key', id);
    }
    const direct = await this.journey(id, 'event_id', id);
    if (direct.kind !== 'not_found') return direct;
    if (TRACE_ID.test(id)) {
      const roots = [...new Set(rootsOf(id, await this.o.queries.ofTrace(id)).values())];
      if (roots.length > 1) return { kind: 'several', matched: 'trace_id', ids: roots };
      if (roots.length === 1) return this.journey(roots[0]!, 'trace_id', id);
    }
    const byMessage = await this.o.queries.ofMessageId(id);
    if (byMessage.length > 1) return { kind: 'several', matched: 'message_id', ids: byMessage };
    if (byMessage.length === 1) return this.journey(byMessage[0]!, 'message_id', id);
    // A dead letter parked under a message id its spans did not record: its trace context.
    const parkedKeys = this.o.parked
      ? [
          ...new Set(
            (await this.o.parked([id])).flatMap((p) => (p.messageKey ? [p.messageKey] : [])),
          ),
        ]
      : [];
    if (parkedKeys.length === 1) return this.journey(parkedKeys[0]!, 'message_id', id);
    return { kind: 'not_found' };
  }

  /** A journey's steps: its own key's, then those its message's spans are keyed by (two hops). */
  async steps(root: string): Promise<StoredRow[]> {
    const seen = new Set([root]);
    let found = await this.o.queries.steps(root);
    let hop = found;
    for (let i = 0; i < 2; i++) {
      const keys = keysOf(hop, seen);
      if (keys.length === 0) break;
      for (const k of keys) seen.add(k);
      hop = await this.o.queries.steps(keys);
      found = [...found, ...hop];
    }
    const unique = new Map(found.map((s) => [`${s.traceId}/${s.spanId}/${s.stage}`, s]));
    return [...unique.values()].sort((a, b) => a.timeUs - b.timeUs);
  }

  /**
   * The broker's counters and watched dead-letter queues for the deliveries whose instrumentation
   * leaves their settle to them: read only where a journey has such a delivery.
   */
  private async settleEvidence(
    steps: readonly StoredRow[],
    nowMs: number,
  ): Promise<SettleEvidence | undefined> {
    const settle = this.o.settle;
    if (!settle) return undefined;
    const silent = steps.filter(
      (s) => s.stage === 'deliver' && leavesSettle(s.attrs[STEP_ATTR.sdk]),
    );
    // A delivery that names no queue (Bunny's) is the publish's, where it reaches one queue.
    const publish = steps.find((s) => isPublish(s.stage));
    const reached =
      publish && silent.some((s) => typeof s.attrs[ATTR.queue] !== 'string')
        ? settle.route(
            String(publish.attrs[SEMCONV.destination] ?? ''),
            str(publish.attrs[SEMCONV.routingKey]),
          )
        : [];
    const publishedTo = reached.length === 1 ? reached[0]! : null;
    const names = [
      ...new Set([
        ...silent.flatMap((s) => {
          const q = str(s.attrs[ATTR.queue]);
          return q === null ? [] : [q];
        }),
        ...(publishedTo === null ? [] : [publishedTo]),
      ]),
    ];
    const readings = names.length
      ? await settle.readings(
          names,
          Math.min(...silent.map((s) => s.timeUs / 1000)) - WINDOW_MARGIN_MS,
          Math.max(...silent.map((s) => (s.timeUs + s.durationUs) / 1000)) + WINDOW_MARGIN_MS,
        )
      : [];
    return { nowMs, boundMs: settle.boundMs, readings, watched: settle.watched, publishedTo };
  }

  private async journey(root: string, by: MatchedBy, value: string): Promise<Found<C>> {
    const { queries, pipeline } = this.o;
    // The steps and the pipeline's rows by event id are read at once (pipeline/rows.ts).
    const stepsRead = this.steps(root);
    const rowsRead = pipeline
      ? pipeline.forEvent(
          root,
          // Never rejects: a failed read of the steps is answered by the caller, not here.
          stepsRead.then(
            (steps) => steps.find((s) => s.aggregateId)?.aggregateId ?? null,
            () => null,
          ),
        )
      : Promise.resolve(null);
    const steps = await stepsRead;
    const matched = { by, value };
    const task = await this.o.celery(root, steps);
    if (task)
      return {
        kind: 'journey',
        journey: { ...task, ordering: [], matched, parked: [], traced: true, knownFrom: [] },
      };
    const rows = await rowsRead;
    const keys = [root, ...new Set(steps.map((s) => s.eventId))].filter(
      (k, i, a) => a.indexOf(k) === i,
    );
    const parked = this.o.parked ? await this.o.parked(keys) : [];
    const records = parked.map(parkedRecord);
    // No span: known from the outbox or parking alone, or not known at all.
    const untraced = steps.length === 0 ? untracedVerdict(rows, records) : null;
    if (untraced?.knownFrom.length === 0) return { kind: 'not_found' };
    const nowMs = Date.now();
    const journey = assemble(root, steps, rows, {
      ...this.o.assemble,
      nowMs,
      broker: { parked: records, settle: await this.settleEvidence(steps, nowMs) },
    });
    if (untraced)
      return {
        kind: 'journey',
        journey: {
          ...journey,
          verdict: untraced.verdict,
          // No span: it is not "in flight" because nothing was delivered; its rows say where it is.
          kinds: [...journey.kinds.filter((k) => k !== 'in_flight'), 'not_traced'],
          celery: null,
          ordering: [],
          matched,
          parked: parked.map(parkedSummary),
          traced: false,
          knownFrom: untraced.knownFrom,
        },
      };
    const versioned = steps.some((s) => s.attrs[ATTR.aggregateVersion] !== undefined);
    const ordering =
      versioned && journey.aggregate
        ? findOrdering(
            await queries.versionedDeliveries(journey.aggregate.id),
            this.o.assemble.words.results ?? NO_RESULT_WORDS,
          ).filter((f) => f.eventId === root)
        : [];
    return {
      kind: 'journey',
      journey: {
        ...journey,
        celery: null,
        ordering,
        matched,
        parked: parked.map(parkedSummary),
        traced: true,
        knownFrom: [],
      },
    };
  }
}

/** A parked dead letter as the journey model reads it. */
const parkedRecord = (d: ParkedMessage): ParkedRecord => ({
  id: d.id,
  queue: d.queue,
  from: d.from,
  reason: d.reason,
  reasonSource: d.reasonSource,
  deathReason: d.deathReason,
  state: d.state,
  parkedAt: new Date(d.parkedAt),
});

/** What support sees of a parked message on the event's page (its id links to it). */
export type ParkedSummary = Omit<
  ParkedMessage,
  'eventId' | 'messageKey' | 'from' | 'reasonSource' | 'deathReason'
> & { reasonSaidBy: string };

const parkedSummary = (d: ParkedMessage): ParkedSummary => ({
  id: d.id,
  queue: d.queue,
  state: d.state,
  stateAt: d.stateAt,
  parkedAt: d.parkedAt,
  reason: d.reason,
  reasonSaidBy: d.reasonSource,
  replays: d.replays,
});
