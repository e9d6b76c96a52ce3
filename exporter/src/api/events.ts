// GET /api/events/:event_id (one journey, assembled),
// GET /api/events?aggregate_id=&anomaly=&since=&limit=&cursor= (keyset-paginated lists) and
// GET /api/journeys?since=&until=&verdict=&queue=&… (journeys found by filters, with verdicts).
import express from 'express';
import type { JourneyService } from '../journeys/service.js';
import type { JourneyStore } from '../journeys/store/index.js';
import { errorMessage, type Logger } from '../log.js';
import { VERSION } from '../version.js';
import { requireToken, type Tokens } from './auth.js';
import { concurrentPerToken } from './per-token.js';
import { explain, ok, refusal, send, storeUnavailable, type Reply } from './reply.js';
import { ID, LIST_ANOMALIES, encodeCursor, listQuery, listedJson } from './event-lists.js';
import { badQuery, journeyQuery, pageReply, searchQueryOf } from './journey-search.js';

export { LIST_ANOMALIES };

export interface EventsApiOptions {
  tokens: Tokens;
  /** The pipeline's words (config journeys.words), served at /api/meta for the dashboard. */
  words: { aggregate: string; done: string };
  /** Whether the journey store is there and ready: the reads wait for it. */
  store: Pick<JourneyStore, 'ready'> | null;
  /** The read path, built once by server.ts (null without a store). */
  journeys: Pick<JourneyService<unknown>, 'get' | 'list' | 'search'> | null;
  /** The store's retention: a search never reaches past it. */
  retentionDays: number;
  /** Bounds on event lists, the heaviest reads: how many one token runs at once (429 beyond). */
  lists: { maxConcurrentPerToken: number };
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
  const lists = concurrentPerToken(
    opts.lists.maxConcurrentPerToken,
    'event lists (journeys.maxConcurrentListsPerToken)',
  );
  router.get(
    '/api/events',
    lists,
    send((req) => listReply(opts, req.query)),
  );
  router.get(
    '/api/journeys',
    lists,
    send((req) => searchReply(opts, req.query)),
  );
  return router;
}

/** GET /api/journeys: journeys found by a time range and filters (api/journey-search.ts). */
export async function searchReply(opts: EventsApiOptions, query: unknown): Promise<Reply> {
  const parsed = journeyQuery.safeParse(query);
  if (!parsed.success) return badQuery(parsed.error);
  const q = searchQueryOf(parsed.data, opts.retentionDays);
  if ('refused' in q) return refusal(400, q.refused);
  const path = readPath(opts);
  if ('refused' in path) return path.refused;
  try {
    const page = await path.journeys.search(q);
    if ('refused' in page) return refusal(400, page.refused);
    return pageReply(page, parsed.data.format);
  } catch (err) {
    return failed(opts, err);
  }
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

/** The read path, or the answer that says why there is none. */
function readPath(
  opts: Pick<EventsApiOptions, 'store' | 'journeys'>,
): { journeys: NonNullable<EventsApiOptions['journeys']> } | { refused: Reply } {
  if (!opts.store || !opts.journeys)
    return { refused: refusal(503, 'the journey store is not configured (ACKTRAIL_DATABASE_URL)') };
  if (!opts.store.ready)
    return {
      refused: refusal(503, 'the journey store is not ready yet (see /status); retry later', {
        'retry-after': '5',
      }),
    };
  return { journeys: opts.journeys };
}

function failed(opts: Pick<EventsApiOptions, 'log'>, err: unknown): Reply {
  opts.log.error({ err: errorMessage(err) }, 'journey API query failed');
  return storeUnavailable();
}

/**
 * GET /api/events/{id}: one journey, assembled (journeys/service.ts). The id is an event id, a
 * trace id, a message id or a message's trace-context key; the journey says which it matched. An
 * id that matches several journeys (a trace that carried several messages) is a 409 that lists
 * them.
 */
export async function journeyReply(opts: EventsApiOptions, id: string): Promise<Reply> {
  if (!ID.test(id)) return refusal(400, 'event_id must be 1-128 printable ASCII characters');
  const path = readPath(opts);
  if ('refused' in path) return path.refused;
  try {
    const found = await path.journeys.get(id);
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

/** GET /api/events?aggregate_id=&anomaly=&since=&limit=&cursor=: one page of a list. */
export async function listReply(opts: EventsApiOptions, query: unknown): Promise<Reply> {
  const parsed = listQuery.safeParse(query);
  if (!parsed.success) return refusal(400, explain(parsed.error));
  const q = parsed.data;
  const path = readPath(opts);
  if ('refused' in path) return path.refused;
  try {
    const page = await path.journeys.list({
      aggregateId: q.aggregate_id,
      anomaly: q.anomaly,
      since: q.since,
      limit: q.limit,
      cursor: q.cursor,
    });
    if (page.kind === 'refused') return refusal(400, page.reason);
    return ok({
      events: page.events.map(listedJson),
      nextCursor: page.next ? encodeCursor(page.next) : null,
      ...(page.ordering ? { ordering: page.ordering } : {}),
    });
  } catch (err) {
    return failed(opts, err);
  }
}
