// GET /api/events/:event_id (one journey, assembled) and
// GET /api/events?aggregate_id=&anomaly=&since=&limit=&cursor= (keyset-paginated lists).
import express, { type Request, type Response } from 'express';
import { assemble, type AssembleOptions } from '../journeys/assemble/assemble.js';
import { assembleCeleryTask } from '../celery/journey.js';
import { workflowTasks } from '../celery/queries.js';
import { isCeleryStep } from '../celery/task.js';
import type { Journey } from './types.js';
import { NO_RESULT_WORDS, findOrdering } from '../journeys/model/index.js';
import type { PipelineReader } from '../journeys/assemble/rows.js';
import type { StepQueries } from '../journeys/store/queries.js';
import type { JourneyStore } from '../journeys/store/supervisor.js';
import { errorMessage, type Logger } from '../log.js';
import { VERSION } from '../version.js';
import { requireToken, scopeOf, type Scope, type Tokens } from './auth.js';

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
  assemble: Omit<AssembleOptions, 'nowMs'>;
  log: Logger;
}

export function eventsRouter(opts: EventsApiOptions): express.Router {
  const router = express.Router();
  router.use('/api', requireToken(opts.tokens));

  const available = (res: Response): StepQueries | null => {
    if (!opts.store) {
      res
        .status(503)
        .json({ error: 'the journey store is not configured (ACKTRAIL_DATABASE_URL)' });
      return null;
    }
    if (!opts.store.ready) {
      res
        .status(503)
        .set('retry-after', '5')
        .json({ error: 'the journey store is not ready yet (see /status); retry later' });
      return null;
    }
    return opts.store.queries;
  };

  // What a reader of journeys needs to know about this exporter: its version and the pipeline's
  // words for its aggregate and for work done.
  router.get('/api/meta', (_req, res) => {
    res.json({
      version: VERSION,
      words: { aggregate: opts.words.aggregate, done: opts.words.done },
    });
  });

  const failed = (res: Response, err: unknown) => {
    opts.log.error({ err: errorMessage(err) }, 'journey API query failed');
    res.status(503).json({ error: 'the journey store is unavailable; retry later' });
  };

  router.get('/api/events/:eventId', async (req: Request<{ eventId: string }>, res: Response) => {
    const { eventId } = req.params;
    if (!ID.test(eventId)) {
      res.status(400).json({ error: 'event_id must be 1-128 printable ASCII characters' });
      return;
    }
    const queries = available(res);
    const store = opts.store;
    if (!queries || !store) return;
    try {
      const steps = await queries.steps(eventId);
      if (steps.some(isCeleryStep)) {
        const rootId = steps.find((s) => s.aggregateId)?.aggregateId ?? null;
        const workflow = rootId ? await workflowTasks(store.reads, rootId) : [];
        res.json({
          ...assembleCeleryTask(eventId, steps, workflow),
          ordering: [],
        } satisfies Journey);
        return;
      }
      const aggregateId = steps.find((s) => s.aggregateId)?.aggregateId ?? null;
      const rows = opts.pipeline ? await opts.pipeline.forEvent(eventId, aggregateId) : null;
      if (steps.length === 0 && !rows?.outbox) {
        res.status(404).json({ error: `no journey for event_id ${eventId}` });
        return;
      }
      const journey = assemble(eventId, steps, rows, { ...opts.assemble, nowMs: Date.now() });
      const versioned = steps.some((s) => s.attrs['acktrail.aggregate_version'] !== undefined);
      const ordering =
        versioned && journey.aggregate
          ? findOrdering(
              await queries.versionedDeliveries(journey.aggregate.id),
              opts.assemble.words.results ?? NO_RESULT_WORDS,
            ).filter((f) => f.eventId === eventId)
          : [];
      res.json({ ...journey, celery: null, ordering } satisfies Journey);
    } catch (err) {
      failed(res, err);
    }
  });

  const listsRunning = new Map<Scope, number>();
  router.get('/api/events', async (req: Request, res: Response) => {
    const scope = scopeOf(res);
    const running = listsRunning.get(scope) ?? 0;
    if (running >= opts.lists.maxConcurrentPerToken) {
      res
        .status(429)
        .set('retry-after', '1')
        .json({
          error: `${running} event lists of this token are running (journeys.maxConcurrentListsPerToken); retry when one ends`,
        });
      return;
    }
    listsRunning.set(scope, running + 1);
    try {
      await listEvents(req, res);
    } finally {
      listsRunning.set(scope, (listsRunning.get(scope) ?? 1) - 1);
    }
  });

  async function listEvents(req: Request, res: Response) {
    const parsed = listQuery.safeParse(req.query);
    if (!parsed.success) {
      res.status(400).json({
        error: parsed.error.issues
          .map((i) =>
            i.code === 'unrecognized_keys'
              ? `unknown parameter(s): ${i.keys.join(', ')}`
              : `${i.path.join('.')}: ${i.message}`,
          )
          .join('; '),
      });
      return;
    }
    const q = parsed.data;
    const queries = available(res);
    if (!queries) return;
    try {
      if (q.anomaly === 'stuck_in_outbox') {
        if (!opts.pipeline?.hasOutbox) {
          res.status(400).json({
            error: 'stuck_in_outbox needs DATABASE_URL and an outbox section in the config',
          });
          return;
        }
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
        res.json({
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
        return;
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
      res.json({
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
      failed(res, err);
    }
  }
  return router;
}
