// Finding journeys without their id (GET /api/journeys, the dashboard's /events): the events
// whose steps match a time range and what support and SREs filter by (a queue, a service, a stage,
// an instrumentation, an anomaly, a Celery task), or the rows stuck in the outbox, or the dead
// letters of a reason group; each assembled as its own page would show it (its verdict in words,
// its kinds) and kept when its verdict is the one asked for. Newest first, on a keyset cursor; a
// page examines at most MAX_SCAN journeys for at most BUDGET_MS and says when it stopped short
// (`partial`, its cursor goes on from there), so that no filter makes a read without end. The count is of the journeys the step filters match (exact up
// to a cap), before the verdict is looked at.
import { VERDICT_CLASSES } from '@acktrail/conventions';
import type { JourneyKind } from './model/index.js';
import {
  countEvents,
  searchEventIds,
  type Cursor,
  type Reader,
  type StepFilter,
} from './store/index.js';
import type { PipelineRowsReader } from './model/pipeline-rows.js';

/** What a search reads of a journey (JourneyService.get's answer, as its page shows it). */
export interface SearchedJourney {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  verdict: string;
  kinds: string[];
  traced: boolean;
  deliveries: number;
}

/** A lookup's answer: a journey, or not (several, not found). */
export type Lookup =
  { kind: 'journey'; journey: SearchedJourney } | { kind: 'several' | 'not_found' };

/** The verdicts a list filters by: what a journey's kinds (and being traced) say of it. */
export const VERDICTS = VERDICT_CLASSES;
export type VerdictFilter = (typeof VERDICTS)[number];

/** Journeys assembled for one page at most: past it the page stops and says so. */
export const MAX_SCAN = 500;
/**
 * How long one page assembles journeys for a verdict before it stops and says so (`partial`, with
 * the cursor to go on): a verdict few of the candidates have must not hold a person's page for
 * seconds (500 journeys assembled: 2.3 s at 10M steps, bench/journey-search.ts).
 */
export const BUDGET_MS = 400;
/** Journeys assembled at once. */
const CONCURRENCY = 4;

const FAILED: readonly JourneyKind[] = [
  'discarded',
  'rejected',
  'unroutable',
  'aggregate_missing',
  'never_acked',
  'task_failed',
  'task_revoked',
  'task_rejected',
];

/** The one class a journey's verdict falls in, for the list's verdict column and filter. */
export function verdictClass(j: { kinds: readonly string[]; traced: boolean }): string {
  const has = (k: JourneyKind) => j.kinds.includes(k);
  if (has('stuck_in_outbox')) return 'stuck';
  if (!j.traced) return 'not_traced';
  if (has('dead_lettered')) return 'dead_lettered';
  if (FAILED.some(has)) return 'failed';
  if (has('settle_not_recorded')) return 'settle_not_recorded';
  if (has('in_flight')) return 'in_flight';
  return 'processed';
}

/** Whether a journey has the verdict asked for (a stuck row without a span is both). */
function matches(j: { kinds: readonly string[]; traced: boolean }, v: VerdictFilter): boolean {
  if (v === 'settle_inferred') return j.kinds.includes('settle_inferred');
  if (v === 'not_traced') return !j.traced;
  if (v === 'stuck') return j.kinds.includes('stuck_in_outbox');
  return verdictClass(j) === v;
}

export interface SearchQuery extends Omit<StepFilter, 'sinceUs' | 'untilUs'> {
  sinceMs: number;
  untilMs: number;
  verdict?: VerdictFilter;
  /** A dead-letter reason group (parking's): the journeys of its parked messages. */
  reasonGroup?: string;
  limit: number;
  cursor: Cursor | null;
}

export interface SearchRow {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  /** The verdict in words, as the journey's page says it. */
  verdict: string;
  /** verdictClass: processed, failed, dead_lettered, in_flight, stuck, not_traced, … */
  class: string;
  kinds: string[];
  traced: boolean;
  deliveries: number;
  /** When the journey's last matching step (or its outbox row, or its parked copy) was. */
  at: string;
}

export interface SearchPage {
  rows: SearchRow[];
  next: Cursor | null;
  /** Journeys examined for this page; `partial`: it stopped at MAX_SCAN before the page filled. */
  scanned: number;
  partial: boolean;
  /** Journeys the filters (before the verdict) match; `exact` false past the cap. */
  count: { value: number; exact: boolean } | null;
}

/** Where a search's candidates come from, newest first from a cursor. */
type Candidates = (cursor: Cursor | null, limit: number) => Promise<Cursor[]>;

export interface SearchOptions {
  reader: Reader;
  /** The read path's lookup: each candidate assembled as its page shows it. */
  get: (id: string) => Promise<Lookup>;
  pipeline: PipelineRowsReader | null;
  stuckAfterSeconds: number;
  /** Dead-letter parking's events of a reason group (null: parking is off). */
  parkedOfGroup:
    | ((
        group: string,
        sinceMs: number,
        untilMs: number,
        c: Cursor | null,
        n: number,
      ) => Promise<Cursor[]>)
    | null;
}

export class JourneySearch {
  constructor(private readonly o: SearchOptions) {}

  async search(q: SearchQuery): Promise<SearchPage | { refused: string }> {
    const source = this.candidates(q);
    if ('refused' in source) return source;
    const started = Date.now();
    // The count reads what the first page's candidates read: both at once.
    const counting = source.count ? source.count() : Promise.resolve(null);
    // Awaited below; a first read that fails (the store away) must not leave it unhandled.
    counting.catch(() => undefined);
    const rows: SearchRow[] = [];
    let cursor = q.cursor;
    let scanned = 0;
    let exhausted = false;
    // An aggregate's events no span has named yet (still in its outbox) come first, on the first
    // page: their journeys say what their rows say.
    if (q.aggregateId !== undefined && q.cursor === null && this.o.pipeline) {
      const only = await this.rowOnly(q.aggregateId, q.sinceMs);
      scanned += only.length;
      for (const [j, at] of only)
        if (rows.length < q.limit && (!q.verdict || matches(j, q.verdict))) rows.push(rowOf(j, at));
    }
    const spent = () => scanned > 0 && Date.now() - started > BUDGET_MS;
    pages: while (rows.length < q.limit && scanned < MAX_SCAN && !spent()) {
      const batch = await source.next(cursor, Math.min(MAX_SCAN - scanned, Math.max(q.limit, 50)));
      if (batch.length === 0) {
        exhausted = true;
        break;
      }
      for (let i = 0; i < batch.length; i += CONCURRENCY) {
        if (rows.length === q.limit || spent()) break pages;
        const chunk = batch.slice(i, i + CONCURRENCY);
        for (const [j, found] of (await this.assemble(chunk)).entries()) {
          scanned++;
          cursor = chunk[j]!;
          if (found && (!q.verdict || matches(found, q.verdict))) rows.push(rowOf(found, cursor));
          if (rows.length === q.limit) break pages;
        }
      }
    }
    const count = await counting;
    return {
      rows,
      next: exhausted ? null : cursor,
      scanned,
      partial: rows.length < q.limit && !exhausted,
      count: count ? { value: count.value, exact: count.exact } : null,
    };
  }

  /** An aggregate's outbox rows that no step names, assembled (their journeys are untraced). */
  private async rowOnly(
    aggregateId: string,
    sinceMs: number,
  ): Promise<[SearchedJourney, Cursor][]> {
    const rows = (await this.o.pipeline!.eventsOfAggregate(aggregateId)).filter(
      (r) => r.createdAt.getTime() >= sinceMs,
    );
    const found = await this.assemble(
      rows.map((r) => ({ eventId: r.eventId, lastUs: r.createdAt.getTime() * 1000 })),
    );
    return found.flatMap((j, i) =>
      j && !j.traced
        ? [[j, { eventId: rows[i]!.eventId, lastUs: rows[i]!.createdAt.getTime() * 1000 }]]
        : [],
    );
  }

  /** Assembles candidates a few at a time; one not found (its steps gone since) is null. */
  private async assemble(batch: readonly Cursor[]): Promise<(SearchedJourney | null)[]> {
    const out: (SearchedJourney | null)[] = [];
    for (let i = 0; i < batch.length; i += CONCURRENCY) {
      const found = await Promise.all(
        batch.slice(i, i + CONCURRENCY).map((c) => this.o.get(c.eventId)),
      );
      out.push(...found.map((f) => (f.kind === 'journey' ? f.journey : null)));
    }
    return out;
  }

  /** The source of a query's candidates: the outbox's stuck rows, parked dead letters, or steps. */
  private candidates(
    q: SearchQuery,
  ):
    | { next: Candidates; count: (() => Promise<{ value: number; exact: boolean }>) | null }
    | { refused: string } {
    if (q.reasonGroup !== undefined) {
      const parked = this.o.parkedOfGroup;
      if (!parked)
        return { refused: 'reason_group needs dead-letter parking (deadLetters.enabled)' };
      return {
        next: (c, n) => parked(q.reasonGroup!, q.sinceMs, q.untilMs, c, n),
        count: null,
      };
    }
    if (q.verdict === 'stuck' || q.verdict === 'not_traced') {
      const pipeline = this.o.pipeline;
      if (!pipeline?.hasOutbox)
        return {
          refused: `verdict ${q.verdict} needs DATABASE_URL and an outbox section in the config`,
        };
      return {
        next: async (c, n) =>
          (
            await pipeline.stuck(
              this.o.stuckAfterSeconds,
              new Date(q.sinceMs),
              c ? { at: new Date(c.lastUs / 1000), id: c.eventId } : null,
              n,
            )
          ).map((r) => ({ eventId: r.eventId, lastUs: r.createdAt.getTime() * 1000 })),
        count: null,
      };
    }
    const filter: StepFilter = {
      sinceUs: q.sinceMs * 1000,
      untilUs: q.untilMs * 1000,
      stage: q.stage,
      service: q.service,
      queue: q.queue,
      sdk: q.sdk,
      anomaly: q.anomaly,
      task: q.task,
      aggregateId: q.aggregateId,
      ...deadLetteredOnly(q),
    };
    return {
      next: (c, n) => searchEventIds(this.o.reader, filter, c, n),
      count: async () => {
        const { count, exact } = await countEvents(this.o.reader, filter);
        return { value: count, exact };
      },
    };
  }
}

/**
 * A dead-lettered journey has a dead-lettered step (its settle, its dead-letter span, its
 * delivery out of a dead-letter queue) or a parked copy: those are its candidates (an index read),
 * not every journey of the range. A parked copy has no stage, service or SDK to filter by.
 */
function deadLetteredOnly(q: SearchQuery): Pick<StepFilter, 'anomaly' | 'parked'> {
  if (q.verdict !== 'dead_lettered' || q.anomaly !== undefined) return {};
  const onlyQueue = [q.stage, q.service, q.sdk, q.task, q.aggregateId].every(
    (v) => v === undefined,
  );
  return { anomaly: 'dead_lettered', parked: onlyQueue };
}

function rowOf(j: SearchedJourney, at: Cursor): SearchRow {
  return {
    eventId: j.eventId,
    aggregate: j.aggregate,
    verdict: j.verdict,
    class: verdictClass(j),
    kinds: j.kinds,
    traced: j.traced,
    deliveries: j.deliveries,
    at: new Date(at.lastUs / 1000).toISOString(),
  };
}
