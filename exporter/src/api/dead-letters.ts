// The dead-letter API (docs/api.md "Dead letters"): failure groups, parked messages, one message
// (its body for operators only), replay and discard (operators, POST, never from another site's
// page), bulk replay jobs and the audit log. Reads need a token; changes need the operator token.
import { UnknownKeyError } from '../deadletters/model/seal.js';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { errorMessage, type Logger } from '../log.js';
import { shown } from '../deadletters/model/message.js';
import { JobLimitReached, type BulkReplays, type Job } from '../deadletters/replay/jobs.js';
import type { Actor, Replayer } from '../deadletters/replay/replay.js';
import type { DeadLetterStore } from '../deadletters/store/store.js';
import {
  ACTOR,
  ID,
  JOB,
  MAX_GROUPS,
  auditQuery,
  group,
  groupId,
  listQuery,
} from './dead-letter-inputs.js';
import { refuseCrossSite, requireToken, scopeOf, type Scope, type Tokens } from './auth.js';
import { concurrentPerToken } from './per-token.js';
import { explain, ok, refusal, send, storeUnavailable, type Reply } from './reply.js';

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
  /** GET requests one token may have running at once (429 beyond). */
  maxConcurrentReadsPerToken: number;
  log: Logger;
}

/**
 * Who asked (called on operator-token routes only): the name the dashboard passes for its
 * signed-in operator, verified when a trusted proxy named them and asserted when they typed it.
 * Only the operator token's bearer (the dashboard) can say either.
 */
function actorOf(req: Request): Actor {
  const named = decodedActor(req.get('x-acktrail-actor'));
  if (!named || !ACTOR.test(named)) return { name: 'operator', verified: false };
  return {
    name: `operator (${named})`,
    verified: req.get('x-acktrail-actor-verified') === 'proxy',
  };
}

/**
 * The name as the dashboard sends it, percent-encoded (a header carries Latin-1 only); a name
 * sent as it is (an older dashboard, a script) reads the same unless it holds a `%`.
 */
function decodedActor(header: string | undefined): string | null {
  if (!header || header.length > 600) return null;
  try {
    return decodeURIComponent(header);
  } catch {
    return null;
  }
}

/** Who is asking: the operator's name for the audit log, and the token's scope. */
export interface Asker {
  actor: Actor;
  scope: Scope;
}

/** A replay job, or 404. */
const jobReply = (job: Job | null): Reply => (job ? ok(job) : refusal(404, 'no such replay job'));

type Parking = NonNullable<DeadLetterApiOptions['parking']>;

/**
 * A handler's frame: its input validated (400 naming what is wrong), parking on (404) and ready
 * (503), a store failure answered 503, a row sealed with a key this exporter lacks 500 naming it.
 */
const guarded =
  (opts: Pick<DeadLetterApiOptions, 'parking' | 'log'>) =>
  <S extends z.ZodType>(schema: S, run: (p: Parking, data: z.output<S>) => Promise<Reply>) =>
  async (input: unknown): Promise<Reply> => {
    const parsed = schema.safeParse(input);
    if (!parsed.success) return refusal(400, explain(parsed.error));
    const p = opts.parking;
    if (!p) return refusal(404, 'dead-letter parking is off (deadLetters.enabled)');
    if (!p.ready())
      return refusal(503, 'the journey store is not ready yet (see /status); retry later', {
        'retry-after': '5',
      });
    try {
      return await run(p, parsed.data);
    } catch (err) {
      opts.log.error({ err: errorMessage(err) }, 'dead-letter API failed');
      // Not the store: this exporter lacks the key a row was sealed with. Retrying is no use.
      if (err instanceof UnknownKeyError)
        return { status: 500, body: { error: err.message, keyId: err.keyId } };
      return storeUnavailable('the store');
    }
  };

/**
 * One parked message. Properties, headers and body hold personal data: operators only, and each
 * read audited. A row sealed with a key this exporter does not hold says so, not failing.
 */
async function oneReply(p: Parking, id: string, asker: Asker): Promise<Reply> {
  const row = await p.store.get(id);
  if (!row) return refusal(404, `no dead letter ${id}`);
  const { content, contentError } =
    asker.scope === 'operate'
      ? await p.replayer.content(id).then(
          (c) => ({ content: c, contentError: null }),
          (err: unknown) => ({ content: null, contentError: errorMessage(err) }),
        )
      : { content: null, contentError: null };
  if (content)
    await p.replayer.audit(asker.actor, 'read_body', row, {
      id,
      eventId: row.eventId,
      outcome: 'read',
      detail: null,
    });
  return ok({
    ...row,
    groupId: groupId(row.queue, row.reasonGroup),
    content: content && shown(content),
    ...(contentError ? { contentError } : {}),
  });
}

/**
 * A replay of these messages: a dry run says where each would go (and which are refused),
 * publishing nothing; one message is replayed before the answer; more run as a job at the
 * configured rate (429 when too many jobs run).
 */
async function replayReply(
  p: Parking,
  list: string[],
  dryRun: boolean,
  asker: Asker,
): Promise<Reply> {
  if (list.length === 0) return refusal(404, 'nothing parked in that group');
  if (dryRun) return ok(await p.replayer.plan(list));
  if (list.length === 1) {
    const { replayId: _r, ...result } = await p.replayer.replayOne(list[0]!, asker.actor);
    const status =
      { replayed: 200, not_parked: 409, refused: 409, no_target: 409 }[result.outcome as string] ??
      502;
    return { status, body: result };
  }
  try {
    const job = await p.jobs.start(list, asker.actor);
    return { status: 202, body: job, headers: { location: `/api/dead-letters/jobs/${job.id}` } };
  } catch (err) {
    if (!(err instanceof JobLimitReached)) throw err;
    return refusal(429, err.message, { 'retry-after': '30' });
  }
}

/** The dead-letter API's handlers, each a function of its input that returns a Reply (guarded). */
export function deadLetterHandlers(
  opts: Omit<DeadLetterApiOptions, 'tokens' | 'maxConcurrentReadsPerToken'>,
) {
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

  const handle = guarded(opts);
  const ids = async (
    p: Parking,
    sel: { ids?: string[]; group?: { queue: string; reasonGroup: string } },
  ) =>
    sel.ids ?? (await p.store.groupIds(sel.group!.queue, sel.group!.reasonGroup, opts.maxMessages));
  /** A page of a keyset list: the `before` of the next one, when the page is full. */
  const page = (rows: { id: string }[], limit: number) =>
    rows.length === limit ? (rows.at(-1)?.id ?? null) : null;

  return {
    groups: handle(z.object({}), async (p) => {
      const groups = await p.store.groups(MAX_GROUPS);
      return ok({ groups: groups.map((g) => ({ id: groupId(g.queue, g.reasonGroup), ...g })) });
    }),

    audit: handle(auditQuery, async (p, q) => {
      const entries = await p.store.auditLog({ beforeId: q.before, eventId: q.event_id }, q.limit);
      return ok({ entries, next: page(entries, q.limit) });
    }),

    jobs: handle(z.object({}), async (p) => ok({ jobs: await p.jobs.list() })),

    job: handle(JOB, async (p, id) => jobReply(await p.jobs.job(id))),

    stop: (id: unknown, asker: Asker) =>
      handle(JOB, async (p, job) => jobReply(await p.jobs.stop(job, asker.actor)))(id),

    list: handle(listQuery, async (p, q) => {
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
      return ok({ deadLetters: rows, next: page(rows, q.limit) });
    }),

    one: (id: unknown, asker: Asker) => handle(ID, (p, valid) => oneReply(p, valid, asker))(id),

    replay: (body: unknown, asker: Asker) =>
      handle(selection, async (p, sel) => replayReply(p, await ids(p, sel), sel.dryRun, asker))(
        body,
      ),

    discard: (body: unknown, asker: Asker) =>
      handle(discardBody, async (p, d) =>
        ok({ discarded: await p.replayer.discard(await ids(p, d), asker.actor, d.reason) }),
      )(body),
  };
}

export function deadLettersRouter(opts: DeadLetterApiOptions): express.Router {
  const router = express.Router();
  const read = [
    requireToken(opts.tokens, 'read'),
    concurrentPerToken(
      opts.maxConcurrentReadsPerToken,
      'dead-letter reads (deadLetters.maxConcurrentReadsPerToken)',
    ),
  ];
  const operate = requireToken(opts.tokens, 'operate');
  const json = express.json({ limit: '2mb' });
  const h = deadLetterHandlers(opts);
  const asker = (req: Request, res: Response): Asker => ({
    actor: actorOf(req),
    scope: scopeOf(res),
  });
  const changes = [operate, refuseCrossSite] as const;

  router.get(
    '/api/dead-letters/groups',
    read,
    send(() => h.groups({})),
  );
  router.get(
    '/api/dead-letters/audit',
    read,
    send((req) => h.audit(req.query)),
  );
  router.get(
    '/api/dead-letters/jobs',
    read,
    send(() => h.jobs({})),
  );
  router.get(
    '/api/dead-letters/jobs/:id',
    read,
    send((req) => h.job(req.params.id)),
  );
  router.post(
    '/api/dead-letters/jobs/:id/stop',
    ...changes,
    send((req, res) => h.stop(req.params.id, asker(req, res))),
  );
  router.get(
    '/api/dead-letters',
    read,
    send((req) => h.list(req.query)),
  );
  router.get(
    '/api/dead-letters/:id',
    read,
    send((req, res) => h.one(req.params.id, asker(req, res))),
  );
  router.post(
    '/api/dead-letters/replay',
    ...changes,
    json,
    send((req, res) => h.replay(req.body as unknown, asker(req, res))),
  );
  router.post(
    '/api/dead-letters/discard',
    ...changes,
    json,
    send((req, res) => h.discard(req.body as unknown, asker(req, res))),
  );
  return router;
}
