// The dead-letter API (docs/api.md "Dead letters"): failure groups, parked messages, one message
// (its body for operators only), replay and discard (operators, POST, never from another site's
// page), bulk replay jobs and the audit log. Reads need a token; changes need the operator token.
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { errorMessage, type Logger } from '../log.js';
import type { Replayer } from '../deadletters/replay.js';
import { STATES, type DeadLetterStore } from '../deadletters/store.js';
import { refuseCrossSite, requireToken, scopeOf, type Tokens } from './auth.js';

export interface DeadLetterApiOptions {
  tokens: Tokens;
  /** null: parking is off (deadLetters.enabled). */
  parking: { store: DeadLetterStore; replayer: Replayer; ready: () => boolean } | null;
  maxMessages: number;
  log: Logger;
}

const ID = z.string().regex(/^\d{1,18}$/, 'must be a dead letter id (digits)');
const MAX_GROUPS = 200;
/** A group is named by its queue and masked reason, as base64url JSON (opaque to clients). */
export const groupId = (queue: string, reasonGroup: string) =>
  Buffer.from(JSON.stringify([queue, reasonGroup])).toString('base64url');
const group = z
  .string()
  .max(1200, 'is not a group id returned by this API')
  .transform((s, ctx) => {
    try {
      const v = JSON.parse(Buffer.from(s, 'base64url').toString()) as unknown;
      if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string'))
        return { queue: v[0] as string, reasonGroup: v[1] as string };
    } catch {
      // falls through
    }
    ctx.addIssue({ code: 'custom', message: 'is not a group id returned by this API' });
    return z.NEVER;
  });
const limit = (def: number, max: number) => z.coerce.number().int().min(1).max(max).default(def);

const listQuery = z.strictObject({
  group: group.optional(),
  queue: z.string().max(255).optional(),
  state: z.enum(STATES).optional(),
  event_id: z
    .string()
    .regex(/^[\x21-\x7e]{1,128}$/, 'must be an event id')
    .optional(),
  before: ID.optional(),
  limit: limit(50, 500),
});
const auditQuery = z.strictObject({
  event_id: z
    .string()
    .regex(/^[\x21-\x7e]{1,128}$/, 'must be an event id')
    .optional(),
  before: ID.optional(),
  limit: limit(50, 500),
});
const ACTOR = /^[\p{L}\p{N} ._@:-]{1,60}$/u;

function explain(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}

/** Who asked: the operator token, and the name the dashboard passes for its signed-in operator. */
function actorOf(req: Request): string {
  const named = req.get('x-acktrail-actor');
  return named && ACTOR.test(named) ? `operator (${named})` : 'operator';
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
  const selection = z.strictObject(chosen).refine(oneOf, { error: 'give either ids or group' });
  const discardBody = z
    .strictObject({ ...chosen, reason: z.string().trim().min(1).max(500) })
    .refine(oneOf, { error: 'give either ids or group' });

  const parking = (res: Response) => {
    const p = opts.parking;
    if (!p) {
      res.status(404).json({ error: 'dead-letter parking is off (deadLetters.enabled)' });
      return null;
    }
    if (!p.ready()) {
      res
        .status(503)
        .set('retry-after', '5')
        .json({ error: 'the journey store is not ready yet (see /readyz); retry later' });
      return null;
    }
    return p;
  };
  const failed = (res: Response, err: unknown) => {
    opts.log.error({ err: errorMessage(err) }, 'dead-letter API failed');
    res.status(503).json({ error: 'the store is unavailable; retry later' });
  };
  const ids = async (
    p: NonNullable<DeadLetterApiOptions['parking']>,
    sel: { ids?: string[]; group?: { queue: string; reasonGroup: string } },
  ) =>
    sel.ids ?? (await p.store.groupIds(sel.group!.queue, sel.group!.reasonGroup, opts.maxMessages));

  router.get('/api/dead-letters/groups', read, async (_req, res) => {
    const p = parking(res);
    if (!p) return;
    try {
      const groups = await p.store.groups(MAX_GROUPS);
      res.json({
        groups: groups.map((g) => ({ id: groupId(g.queue, g.reasonGroup), ...g })),
      });
    } catch (err) {
      failed(res, err);
    }
  });

  router.get('/api/dead-letters/audit', read, async (req, res) => {
    const q = auditQuery.safeParse(req.query);
    if (!q.success) {
      res.status(400).json({ error: explain(q.error) });
      return;
    }
    const p = parking(res);
    if (!p) return;
    try {
      const entries = await p.store.auditLog(
        { beforeId: q.data.before, eventId: q.data.event_id },
        q.data.limit,
      );
      res.json({
        entries,
        next: entries.length === q.data.limit ? (entries.at(-1)?.id ?? null) : null,
      });
    } catch (err) {
      failed(res, err);
    }
  });

  router.get('/api/dead-letters/jobs', read, (_req, res) => {
    const p = parking(res);
    if (p) res.json({ jobs: p.replayer.list() });
  });

  router.get('/api/dead-letters/jobs/:id', read, (req: Request<{ id: string }>, res) => {
    const p = parking(res);
    if (!p) return;
    const job = p.replayer.job(req.params.id);
    if (!job) res.status(404).json({ error: 'no such replay job on this exporter' });
    else res.json(job);
  });

  router.post(
    '/api/dead-letters/jobs/:id/stop',
    operate,
    refuseCrossSite,
    (req: Request<{ id: string }>, res) => {
      const p = parking(res);
      if (!p) return;
      const job = p.replayer.stop(req.params.id);
      if (!job) res.status(404).json({ error: 'no such replay job on this exporter' });
      else res.json(job);
    },
  );

  router.get('/api/dead-letters', read, async (req, res) => {
    const q = listQuery.safeParse(req.query);
    if (!q.success) {
      res.status(400).json({ error: explain(q.error) });
      return;
    }
    const p = parking(res);
    if (!p) return;
    try {
      const rows = await p.store.list(
        {
          queue: q.data.group?.queue ?? q.data.queue,
          reasonGroup: q.data.group?.reasonGroup,
          state: q.data.state,
          eventId: q.data.event_id,
          beforeId: q.data.before,
        },
        q.data.limit,
      );
      res.json({
        deadLetters: rows,
        next: rows.length === q.data.limit ? (rows.at(-1)?.id ?? null) : null,
      });
    } catch (err) {
      failed(res, err);
    }
  });

  router.get('/api/dead-letters/:id', read, async (req: Request<{ id: string }>, res) => {
    const id = ID.safeParse(req.params.id);
    if (!id.success) {
      res.status(400).json({ error: `id ${explain(id.error)}` });
      return;
    }
    const p = parking(res);
    if (!p) return;
    try {
      const row = await p.store.get(id.data);
      if (!row) {
        res.status(404).json({ error: `no dead letter ${id.data}` });
        return;
      }
      // Properties, headers and body hold personal data: operators only.
      const content = scopeOf(res) === 'operate' ? await p.replayer.content(id.data) : null;
      res.json({
        ...row,
        groupId: groupId(row.queue, row.reasonGroup),
        content: content
          ? {
              properties: content.properties,
              headers: printable(content.headers),
              body: bodyText(content.body, content.properties.contentEncoding),
            }
          : null,
      });
    } catch (err) {
      failed(res, err);
    }
  });

  router.post('/api/dead-letters/replay', operate, refuseCrossSite, json, async (req, res) => {
    const b = selection.safeParse(req.body);
    if (!b.success) {
      res.status(400).json({ error: explain(b.error) });
      return;
    }
    const p = parking(res);
    if (!p) return;
    try {
      const list = await ids(p, b.data);
      if (list.length === 0) {
        res.status(404).json({ error: 'nothing parked in that group' });
        return;
      }
      const actor = actorOf(req);
      // One message is replayed before the answer; more run as a job at the configured rate.
      if (list.length === 1) {
        const r = await p.replayer.replayOne(list[0]!, actor);
        const { replayId: _r, ...result } = r;
        res
          .status(r.outcome === 'replayed' ? 200 : r.outcome === 'not_parked' ? 409 : 502)
          .json(result);
        return;
      }
      const job = p.replayer.start(list, actor);
      res.status(202).location(`/api/dead-letters/jobs/${job.id}`).json(job);
    } catch (err) {
      failed(res, err);
    }
  });

  router.post('/api/dead-letters/discard', operate, refuseCrossSite, json, async (req, res) => {
    const b = discardBody.safeParse(req.body);
    if (!b.success) {
      res.status(400).json({ error: explain(b.error) });
      return;
    }
    const p = parking(res);
    if (!p) return;
    try {
      const list = await ids(p, b.data);
      const discarded = await p.replayer.discard(list, actorOf(req), b.data.reason);
      res.json({ discarded });
    } catch (err) {
      failed(res, err);
    }
  });

  return router;
}

/** Headers as JSON can show them: byte strings as text, AMQP typed values as their value. */
function printable(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value)) return value.map(printable);
  if (value !== null && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if ('!' in v && 'value' in v) return v.value;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, printable(x)]));
  }
  return value;
}

/** The body as text when it is UTF-8, else base64. */
function bodyText(body: Buffer, encoding: unknown): { text: string } | { base64: string } {
  const text = body.toString('utf8');
  return encoding === undefined && Buffer.from(text, 'utf8').equals(body)
    ? { text }
    : { base64: body.toString('base64') };
}
