// Lists of journeys (JourneyService.list): the events of an aggregate or with an anomaly, one page
// at a time on a keyset cursor, as summaries; an aggregate's events still in the outbox (no span
// yet) beside them; the rows stuck in the outbox from the pipeline's own table; and, for an
// aggregate whose deliveries carry versions, the order they were processed in.
import {
  NO_RESULT_WORDS,
  findOrdering,
  type OrderingFinding,
  type ResultWords,
} from './model/index.js';
import type { PipelineRowsReader } from './model/pipeline-rows.js';
import { DAY_MS, type Cursor, type EventSummary, type StepReads } from './store/index.js';

/** A list's query, checked already (api/event-lists.ts). */
export interface ListQuery {
  aggregateId?: string;
  /** A step anomaly, or `published_twice`, or `stuck_in_outbox`. */
  anomaly?: string;
  /** Epoch ms; null: the last 24 hours (stuck rows: however old). */
  since: number | null;
  limit: number;
  cursor: Cursor | null;
}

export interface ListOptions {
  queries: StepReads;
  pipeline: PipelineRowsReader | null;
  /** Nothing older is kept: a search never reaches further back. */
  retentionDays: number;
  stuckAfterSeconds: number;
  results: ResultWords | undefined;
}

/** A listed event: its summary, or null for a stuck row no span has named yet. */
export interface ListedEvent {
  eventId: string;
  summary: EventSummary | null;
  /** When its outbox row was made: set on the rows stuck in the outbox. */
  outboxCreatedAt?: Date;
  /** A stuck row's aggregate, from its outbox row (where the outbox names it). */
  aggregateId?: string | null;
}

export type JourneyPage =
  | {
      kind: 'page';
      events: ListedEvent[];
      next: Cursor | null;
      ordering: {
        processed: { eventId: string; version: number }[];
        findings: OrderingFinding[];
      } | null;
    }
  | { kind: 'refused'; reason: string };

export async function listJourneys(o: ListOptions, q: ListQuery): Promise<JourneyPage> {
  if (q.anomaly === 'stuck_in_outbox') return stuckInOutbox(o, q);
  const { queries } = o;
  const oldest = Date.now() - o.retentionDays * DAY_MS;
  const ids = await queries.eventIds(
    {
      aggregateId: q.aggregateId,
      anomaly: q.anomaly === 'published_twice' ? undefined : q.anomaly,
      publishedTwice: q.anomaly === 'published_twice',
    },
    Math.max(q.since ?? Date.now() - DAY_MS, oldest) * 1000,
    q.cursor,
    q.limit,
  );
  const summaries = await queries.summaries(ids.map((i) => i.eventId));
  const events: ListedEvent[] = ids.flatMap((i) => {
    const s = summaries.get(i.eventId);
    return s ? [{ eventId: i.eventId, summary: s }] : [];
  });
  if (q.aggregateId !== undefined && !q.cursor && o.pipeline)
    events.push(...(await stillInOutbox(o.pipeline, q.aggregateId, q.since, events)));
  const last = ids.at(-1);
  const deliveries =
    q.aggregateId !== undefined ? await queries.versionedDeliveries(q.aggregateId) : [];
  return {
    kind: 'page',
    events,
    next: last && ids.length === q.limit ? last : null,
    ordering: deliveries.length
      ? {
          processed: deliveries.map((d) => ({ eventId: d.eventId, version: d.version })),
          findings: findOrdering(deliveries, o.results ?? NO_RESULT_WORDS),
        }
      : null,
  };
}

/** An aggregate's events that have no span yet (still in the outbox), as summaries. */
async function stillInOutbox(
  pipeline: PipelineRowsReader,
  aggregateId: string,
  since: number | null,
  listed: readonly ListedEvent[],
): Promise<ListedEvent[]> {
  const known = new Set(listed.map((e) => e.eventId));
  const from = since ?? Date.now() - DAY_MS;
  return (await pipeline.eventsOfAggregate(aggregateId))
    .filter((row) => !known.has(row.eventId) && row.createdAt.getTime() >= from)
    .map((row) => {
      const us = row.createdAt.getTime() * 1000;
      return {
        eventId: row.eventId,
        summary: {
          eventId: row.eventId,
          aggregateType: null,
          aggregateId,
          firstSeenUs: us,
          lastSeenUs: us,
          steps: 0,
          anomalies: [],
        },
      };
    });
}

/** The pipeline's outbox rows older than stuckAfterSeconds and still unpublished, newest first. */
async function stuckInOutbox(o: ListOptions, q: ListQuery): Promise<JourneyPage> {
  if (!o.pipeline?.hasOutbox)
    return {
      kind: 'refused',
      reason: 'stuck_in_outbox needs DATABASE_URL and an outbox section in the config',
    };
  const before = q.cursor ? { at: new Date(q.cursor.lastUs / 1000), id: q.cursor.eventId } : null;
  const rows = await o.pipeline.stuck(o.stuckAfterSeconds, new Date(q.since ?? 0), before, q.limit);
  const summaries = await o.queries.summaries(rows.map((r) => r.eventId));
  const last = rows.at(-1);
  return {
    kind: 'page',
    events: rows.map((r) => ({
      eventId: r.eventId,
      summary: summaries.get(r.eventId) ?? null,
      outboxCreatedAt: r.createdAt,
      aggregateId: r.aggregateId,
    })),
    next:
      last && rows.length === q.limit
        ? { lastUs: last.createdAt.getTime() * 1000, eventId: last.eventId }
        : null,
    ordering: null,
  };
}
