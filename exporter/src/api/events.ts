// GET /api/events/:event_id (one journey, assembled) and
// GET /api/events?aggregate_id=&anomaly=&since=&limit=&cursor= (keyset-paginated lists).
import express from 'express';
import type { AssembleOptions } from '../journeys/assemble/assemble.js';
import { JourneyService, type ParkedMessage } from '../journeys/service.js';
import { assembleCeleryTask } from '../celery/journey.js';
import { workflowTasks } from '../celery/queries.js';
import { isCeleryStep, type CeleryTask } from '../celery/task.js';
import { NO_RESULT_WORDS, findOrdering } from '../journeys/model/index.js';
import type { PipelineReader } from '../journeys/assemble/rows.js';
import type { StepQueries } from '../journeys/store/index.js';
import type { JourneyStore } from '../journeys/store/index.js';
import { errorMessage, type Logger } from '../log.js';
import { VERSION } from '../version.js';
import { requireToken, type Tokens } from './auth.js';
import { concurrentPerToken } from './per-token.js';
import { ok, refusal, send, type Reply } from './reply.js';
import {
  ID,
  LIST_ANOMALIES,
  UNIT_MS,
  encodeCursor,
  listQuery,
  summaryJson,
} from './event-lists.js';

export { LIST_ANOMALIES };

export interface EventsApiOptions {
  tokens: Tokens;
  /** The pipeline's words (config journeys.words), served at /api/meta for the dashboard. */
  words: { aggregate: string; done: string };
  store: JourneyStore | null;
  /**
   * Bounds on event lists, the heaviest reads: how many one token runs at once (429 beyond), and
   * how far back they search the journey store (its retention; nothing older is kept).
   */
  lists: { maxConcurrentPerToken: number; retentionDays: number };
  pipeline: PipelineReader | null;
  /** Dead-letter parking's records of these journey keys (their event ids); null: parking off. */
  parked: ((ids: string[]) => Promise<ParkedMessage[]>) | null;
  assemble: Omit<AssembleOptions, 'nowMs'>;
  log: Logger;
}

export function eventsRouter(opts: EventsApiOptions): express.Router {
  const router = express.Router();
  router.use('/api', requireToken(opts.tokens));
  router.get(
    '/api/meta',
    send(() => metaReply(opts)),
  );
  router.get(
    '/api/events/:eventId',
    send<{ eventId: string }>((req) => journeyReply(opts, req.params.eventId)),
  );
  router.get(
    '/api/events',
    concurrentPerToken(
      opts.lists.maxConcurrentPerToken,
      'event lists (journeys.maxConcurrentListsPerToken)',
    ),
    send((req) => listReply(opts, req.query)),
  );
  return router;
}

/**
 * What a reader of journeys needs to know about this exporter: its version and the pipeline's
 * words for its aggregate and for work done.
 */
export function metaReply(opts: Pick<EventsApiOptions, 'words'>): Reply {
  return ok({
    version: VERSION,
    words: { aggregate: opts.words.aggregate, done: opts.words.done },
  });
}

/** The store's queries, or the answer that says why there are none. */
function queriesOf(
  opts: Pick<EventsApiOptions, 'store'>,
): { queries: StepQueries } | { refused: Reply } {
  if (!opts.store)
    return { refused: refusal(503, 'the journey store is not configured (ACKTRAIL_DATABASE_URL)') };
  if (!opts.store.ready)
    return {
      refused: refusal(503, 'the journey store is not ready yet (see /status); retry later', {
        'retry-after': '5',
      }),
    };
  return { queries: opts.store.queries };
}

function failed(opts: Pick<EventsApiOptions, 'log'>, err: unknown): Reply {
  opts.log.error({ err: errorMessage(err) }, 'journey API query failed');
  return refusal(503, 'the journey store is unavailable; retry later');
}

/**
 * GET /api/events/{id}: one journey, assembled (journeys/service.ts). The id is an event id, a
 * trace id, a message id or a message's trace-context key; the journey says which it matched. An
 * id that matches several journeys (a trace that carried several messages) is a 409 that lists
 * them.
 */
export async function journeyReply(opts: EventsApiOptions, id: string): Promise<Reply> {
  if (!ID.test(id)) return refusal(400, 'event_id must be 1-128 printable ASCII characters');
  const store = queriesOf(opts);
  if ('refused' in store) return store.refused;
  try {
    const found = await serviceOf(opts, store.queries).get(id);
    switch (found.kind) {
      case 'journey':
        return ok(found.journey);
      case 'several':
        return {
          status: 409,
          body: {
            error: `${found.matched.replace('_', ' ')} ${id} matches ${found.ids.length} journeys; ask for one of them`,
            matched: found.matched,
            ids: found.ids,
          },
        };
      case 'not_found':
        return refusal(404, `no journey for event_id ${id}`);
    }
  } catch (err) {
    return failed(opts, err);
  }
}

/** The read path over this store's queries, with Celery's task journeys. */
const serviceOf = (opts: EventsApiOptions, queries: StepQueries) =>
  new JourneyService<CeleryTask>({
    queries,
    pipeline: opts.pipeline,
    parked: opts.parked,
    celery: async (root, steps) => {
      if (!steps.some(isCeleryStep)) return null;
      const rootId = steps.find((s) => s.aggregateId)?.aggregateId ?? null;
      const workflow = rootId ? await workflowTasks(opts.store!.reads, rootId) : [];
      return assembleCeleryTask(root, steps, workflow);
    },
    assemble: opts.assemble,
  });

/** GET /api/events?aggregate_id=&anomaly=&since=&limit=&cursor=: one page of a list. */
export async function listReply(opts: EventsApiOptions, query: unknown): Promise<Reply> {
  const parsed = listQuery.safeParse(query);
  if (!parsed.success)
    return refusal(
      400,
      parsed.error.issues
        .map((i) =>
          i.code === 'unrecognized_keys'
            ? `unknown parameter(s): ${i.keys.join(', ')}`
            : `${i.path.join('.')}: ${i.message}`,
        )
        .join('; '),
    );
  const q = parsed.data;
  const store = queriesOf(opts);
  if ('refused' in store) return store.refused;
  const { queries } = store;
  try {
    if (q.anomaly === 'stuck_in_outbox') {
      if (!opts.pipeline?.hasOutbox)
        return refusal(
          400,
          'stuck_in_outbox needs DATABASE_URL and an outbox section in the config',
        );
      const before = q.cursor
        ? { at: new Date(q.cursor.lastUs / 1000), id: q.cursor.eventId }
        : null;
      const rows = await opts.pipeline.stuck(
        opts.assemble.stuckAfterSeconds,
        new Date(q.since ?? 0),
        before,
        q.limit,
      );
      const summaries = await queries.summaries(rows.map((r) => r.eventId));
      const last = rows.at(-1);
      return ok({
        events: rows.map((r) => ({
          ...(summaries.get(r.eventId)
            ? summaryJson(summaries.get(r.eventId)!)
            : { eventId: r.eventId, aggregate: null, steps: 0, anomalies: [] }),
          outboxCreatedAt: r.createdAt.toISOString(),
        })),
        nextCursor:
          last && rows.length === q.limit
            ? encodeCursor({ lastUs: last.createdAt.getTime() * 1000, eventId: last.eventId })
            : null,
      });
    }
    // Nothing older than the retention is kept: a search never reaches further back.
    const oldest = Date.now() - opts.lists.retentionDays * UNIT_MS.d;
    const ids = await queries.eventIds(
      {
        aggregateId: q.aggregate_id,
        anomaly: q.anomaly === 'published_twice' ? undefined : q.anomaly,
        publishedTwice: q.anomaly === 'published_twice',
      },
      Math.max(q.since ?? Date.now() - UNIT_MS.d, oldest) * 1000,
      q.cursor,
      q.limit,
    );
    const summaries = await queries.summaries(ids.map((i) => i.eventId));
    const events = ids.flatMap((i) => {
      const s = summaries.get(i.eventId);
      return s ? [summaryJson(s)] : [];
    });
    // An order's events that have no span yet (still in the outbox) are listed too.
    if (q.aggregate_id !== undefined && !q.cursor && opts.pipeline) {
      const known = new Set(events.map((e) => e.eventId));
      for (const row of await opts.pipeline.eventsOfAggregate(q.aggregate_id)) {
        if (
          !known.has(row.eventId) &&
          row.createdAt.getTime() >= (q.since ?? Date.now() - UNIT_MS.d)
        )
          events.push({
            eventId: row.eventId,
            aggregate: { type: null, id: q.aggregate_id },
            firstSeen: row.createdAt.toISOString(),
            lastSeen: row.createdAt.toISOString(),
            steps: 0,
            anomalies: [],
          });
      }
    }
    const last = ids.at(-1);
    // An aggregate whose deliveries carry versions: the order they were processed in.
    const deliveries =
      q.aggregate_id !== undefined ? await queries.versionedDeliveries(q.aggregate_id) : [];
    return ok({
      events,
      nextCursor: last && ids.length === q.limit ? encodeCursor(last) : null,
      ...(deliveries.length
        ? {
            ordering: {
              processed: deliveries.map((d) => ({ eventId: d.eventId, version: d.version })),
              findings: findOrdering(deliveries, opts.assemble.words.results ?? NO_RESULT_WORDS),
            },
          }
        : {}),
    });
  } catch (err) {
    return failed(opts, err);
  }
}
