// POST /api/lookups {value}: the business-key lookups (pipeline/lookups.ts) the value is for, and
// the ids each found. POST, so that the value (a customer's e-mail) stays out of URLs, access logs
// and proxies' logs; GET /api/lookups: the lookups configured, for the search box's words.
import express from 'express';
import { z } from 'zod';
import { MAX_LOOKUP_VALUE } from '../config/lookups.js';
import { requireToken, type Tokens } from './auth.js';
import { concurrentPerToken } from './per-token.js';
import { explain, ok, refusal, send, type Reply } from './reply.js';

/** The lookups as the API reads them (pipeline/lookups.ts runs them; server.ts wires it). */
export interface Lookups {
  names: { name: string; description: string | null; returns: string }[];
  find(value: string): Promise<unknown[]>;
}

export interface LookupsApiOptions {
  tokens: Tokens;
  /** null: no lookup configured, or no pipeline database (DATABASE_URL). */
  lookups: Lookups | null;
  maxConcurrentPerToken: number;
}

export const lookupBody = z.strictObject({
  value: z
    .string({ error: 'must be the text to look up' })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_LOOKUP_VALUE, `must be at most ${MAX_LOOKUP_VALUE} characters`),
});

export async function lookupReply(opts: LookupsApiOptions, body: unknown): Promise<Reply> {
  const parsed = lookupBody.safeParse(body);
  if (!parsed.success) return refusal(400, explain(parsed.error));
  if (!opts.lookups) return ok({ lookups: [] });
  return ok({ lookups: await opts.lookups.find(parsed.data.value) });
}

export function lookupsRouter(opts: LookupsApiOptions): express.Router {
  const router = express.Router();
  const read = requireToken(opts.tokens, 'read');
  router.get(
    '/api/lookups',
    read,
    send(() => ok({ lookups: opts.lookups?.names ?? [] })),
  );
  router.post(
    '/api/lookups',
    read,
    concurrentPerToken(opts.maxConcurrentPerToken, 'lookups (journeys.maxConcurrentListsPerToken)'),
    express.json({ limit: '4kb' }),
    send((req) => lookupReply(opts, req.body)),
  );
  return router;
}
