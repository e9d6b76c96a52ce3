// GET /api/queues: every queue in scope as the last scrape read it (role, type, ready, unacked,
// consumers, head age), with each work queue's health status and the rule that decided it
// (collectors/rabbitmq/status.ts) and the event of its oldest waiting message where the journeys
// know it, so that the dashboard can show one row per queue and link to that journey. Needs the
// API token. `?role=work` keeps one role. The same figures are on /metrics
// (acktrail_queue_status and the queue gauges); this is what a page needs in one read.
import express from 'express';
import type { QueueSummary } from '../collectors/rabbitmq/board.js';
import { requireToken, type Tokens } from './auth.js';
import { ok, refusal, send, type Reply } from './reply.js';

const ROLES = new Set(['work', 'retry', 'dead_letter']);

export function queuesRouter(opts: QueuesApiOptions) {
  const router = express.Router();
  router.get(
    '/api/queues',
    requireToken(opts.tokens),
    send((req) => queuesReply(opts, req.query.role)),
  );
  return router;
}

export interface QueuesApiOptions {
  tokens: Tokens;
  /** The RabbitMQ collectors' board (null: rabbitmq is off). */
  board: { summary(nowMs: number): QueueSummary[] } | null;
}

/** GET /api/queues[?role=]: the queues in scope, sorted by vhost and name. */
export function queuesReply(opts: Pick<QueuesApiOptions, 'board'>, role: unknown): Reply {
  if (role !== undefined && (typeof role !== 'string' || !ROLES.has(role)))
    return refusal(400, 'role: must be work, retry or dead_letter');
  const queues = (opts.board?.summary(Date.now()) ?? [])
    .filter((q) => role === undefined || q.role === role)
    .sort((a, b) => a.vhost.localeCompare(b.vhost) || a.queue.localeCompare(b.queue));
  return ok({ queues });
}
