// The dead-letter API (docs/api.md "Dead letters"): failure groups, parked messages, one message
// (its body for operators only), replay and discard (operators, POST, never from another site's
// page), bulk replay jobs and the audit log. Reads need a token; changes need the operator token.
import { UnknownKeyError } from '../deadletters/seal.js';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { errorMessage, type Logger } from '../log.js';
import { shown } from '../deadletters/message.js';
import { JobLimitReached, type BulkReplays, type Job } from '../deadletters/jobs.js';
import type { Actor, Replayer } from '../deadletters/replay.js';
import type { DeadLetterStore } from '../deadletters/store.js';
import {
  ACTOR,
  ID,
  JOB,
  MAX_GROUPS,
  auditQuery,
  explain,
  group,
  groupId,
  listQuery,
} from './dead-letter-inputs.js';
import { refuseCrossSite, requireToken, scopeOf, type Tokens } from './auth.js';

export interface DeadLetterApiOptions {
  tokens: Tokens;
  /** null: parking is off (deadLetters.enabled). */
  parking: {
    store: DeadLetterStore;
    replayer: Replayer;
    jobs: BulkReplays;
    ready: () => boolean;
  } | null;
  maxMessages: number;
  log: Logger;
}

/** A replay job, or 404. */
function answerJob(res: Response, job: Job | null): void {
  if (!job) res.status(404).json({ error: 'no such replay job' });
  else res.json(job);
}

/**
 * Who asked (called on operator-token routes only): the name the dashboard passes for its
 * signed-in operator, verified when a trusted proxy named them and asserted when they typed it.
 * Only the operator token's bearer (the dashboard) can say either.
 */
function actorOf(req: Request): Actor {
  const named = req.get('x-acktrail-actor');
  if (!named || !ACTOR.test(named)) return { name: 'operator', verified: false };
  return {
    name: `operator (${named})`,
    verified: req.get('x-acktrail-actor-verified') === 'proxy',
  };
}

export function deadLettersRouter(opts: DeadLetterApiOptions): express.Router {
  const router = express.Router();
  const read = requireToken(opts.tokens, 'read');
  const operate = requireToken(opts.tokens, 'operate');
  const json = express.json({ limit: '2mb' });
  const chosen = {
    ids: z.array(ID).min(1).max(opts.maxMessages).optional(),
    group: group.optional(),
  };
  const oneOf = (b: { ids?: unknown; group?: unknown }) =>
    (b.ids === undefined) !== (b.group === undefined);
  const selection = z
    .strictObject({ ...chosen, dryRun: z.boolean().default(false) })
    .refine(oneOf, { error: 'give either ids or group' });
  const discardBody = z
    .strictObject({ ...chosen, reason: z.string().trim().min(1).max(500) })
    .refine(oneOf, { error: 'give either ids or group' });

  type Parking = NonNullable<DeadLetterApiOptions['parking']>;
  /**
   * A route: its input validated (400 naming what is wrong), parking on (404) and ready (503),
   * a store failure answered 503, a row sealed with a key it lacks 500 naming the key; `run` does
   * the rest.
   */
  const handle =
    <S extends z.ZodType>(
      schema: S,
      input: (req: Request) => unknown,
      run: (p: Parking, data: z.output<S>, req: Request, res: Response) => Promise<void> | void,
    ) =>
    async (req: Request, res: Response) => {
      const parsed = schema.safeParse(input(req));
      if (!parsed.success) {
        res.status(400).json({ error: explain(parsed.error) });
        return;
      }
      const p = opts.parking;
      if (!p) {
        res.status(404).json({ error: 'dead-letter parking is off (deadLetters.enabled)' });
        return;
      }
      if (!p.ready()) {
        res
          .status(503)
          .set('retry-after', '5')
          .json({ error: 'the journey store is not ready yet (see /status); retry later' });
        return;
      }
      try {
        await run(p, parsed.data, req, res);
      } catch (err) {
        opts.log.error({ err: errorMessage(err) }, 'dead-letter API failed');
        // Not the store: this exporter lacks the key a row was sealed with. Retrying is no use.
        if (err instanceof UnknownKeyError)
          res.status(500).json({ error: err.message, keyId: err.keyId });
        else res.status(503).json({ error: 'the store is unavailable; retry later' });
      }
    };
  const query = (req: Request) => req.query;
  const body = (req: Request) => req.body as unknown;
  const none = () => ({});
  const param = (req: Request) => req.params.id;
  const ids = async (
    p: Parking,
    sel: { ids?: string[]; group?: { queue: string; reasonGroup: string } },
  ) =>
    sel.ids ?? (await p.store.groupIds(sel.group!.queue, sel.group!.reasonGroup, opts.maxMessages));
  /** A page of a keyset list: the `before` of the next one, when the page is full. */
  const page = (rows: { id: string }[], limit: number) =>
    rows.length === limit ? (rows.at(-1)?.id ?? null) : null;

  router.get(
    '/api/dead-letters/groups',
    read,
    handle(z.object({}), none, async (p, _d, _req, res) => {
      const groups = await p.store.groups(MAX_GROUPS);
      res.json({ groups: groups.map((g) => ({ id: groupId(g.queue, g.reasonGroup), ...g })) });
    }),
  );

  router.get(
    '/api/dead-letters/audit',
    read,
    handle(auditQuery, query, async (p, q, _req, res) => {
      const entries = await p.store.auditLog({ beforeId: q.before, eventId: q.event_id }, q.limit);
      res.json({ entries, next: page(entries, q.limit) });
    }),
  );

  router.get(
    '/api/dead-letters/jobs',
    read,
    handle(z.object({}), none, async (p, _d, _req, res) => {
      res.json({ jobs: await p.jobs.list() });
    }),
  );

  router.get(
    '/api/dead-letters/jobs/:id',
    read,
    handle(JOB, param, async (p, id, _req, res) => {
      answerJob(res, await p.jobs.job(id));
    }),
  );

  router.post(
    '/api/dead-letters/jobs/:id/stop',
    operate,
    refuseCrossSite,
    handle(JOB, param, async (p, id, _req, res) => {
      answerJob(res, await p.jobs.stop(id));
    }),
  );

  router.get(
    '/api/dead-letters',
    read,
    handle(listQuery, query, async (p, q, _req, res) => {
      const rows = await p.store.list(
        {
          queue: q.group?.queue ?? q.queue,
          reasonGroup: q.group?.reasonGroup,
          state: q.state,
          eventId: q.event_id,
          beforeId: q.before,
        },
        q.limit,
      );
      res.json({ deadLetters: rows, next: page(rows, q.limit) });
    }),
  );

  router.get(
    '/api/dead-letters/:id',
    read,
    handle(ID, param, async (p, id, req, res) => {
      const row = await p.store.get(id);
      if (!row) {
        res.status(404).json({ error: `no dead letter ${id}` });
        return;
      }
      // Properties, headers and body hold personal data: operators only, and each read audited.
      // A row sealed with a key this exporter does not hold says so, instead of failing.
      const opened =
        scopeOf(res) === 'operate'
          ? await p.replayer.content(id).then(
              (c) => ({ content: c, contentError: null }),
              (err: unknown) => ({ content: null, contentError: errorMessage(err) }),
            )
          : { content: null, contentError: null };
      const { content, contentError } = opened;
      if (content)
        await p.replayer.audit(actorOf(req), 'read_body', row, {
          id,
          eventId: row.eventId,
          outcome: 'read',
          detail: null,
        });
      res.json({
        ...row,
        groupId: groupId(row.queue, row.reasonGroup),
        content: content && shown(content),
        ...(contentError ? { contentError } : {}),
      });
    }),
  );

  router.post(
    '/api/dead-letters/replay',
    operate,
    refuseCrossSite,
    json,
    handle(selection, body, async (p, sel, req, res) => {
      const list = await ids(p, sel);
      if (list.length === 0) {
        res.status(404).json({ error: 'nothing parked in that group' });
        return;
      }
      const actor = actorOf(req);
      // A dry run says where each message would go (and which are refused), publishing nothing.
      if (sel.dryRun) {
        res.json(await p.replayer.plan(list));
        return;
      }
      // One message is replayed before the answer; more run as a job at the configured rate.
      if (list.length === 1) {
        const { replayId: _r, ...result } = await p.replayer.replayOne(list[0]!, actor);
        const status =
          { replayed: 200, not_parked: 409, refused: 409, no_target: 409 }[
            result.outcome as string
          ] ?? 502;
        res.status(status).json(result);
        return;
      }
      try {
        const job = await p.jobs.start(list, actor);
        res.status(202).location(`/api/dead-letters/jobs/${job.id}`).json(job);
      } catch (err) {
        if (!(err instanceof JobLimitReached)) throw err;
        res.status(429).set('retry-after', '30').json({ error: err.message });
      }
    }),
  );

  router.post(
    '/api/dead-letters/discard',
    operate,
    refuseCrossSite,
    json,
    handle(discardBody, body, async (p, d, req, res) => {
      const discarded = await p.replayer.discard(await ids(p, d), actorOf(req), d.reason);
      res.json({ discarded });
    }),
  );

  return router;
}
