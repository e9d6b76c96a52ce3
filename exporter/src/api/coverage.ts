// GET /api/coverage: what the spans received so far let journeys read, per service and stage,
// with the one-line fix for each gap (journeys/coverage.ts). Needs the API token.
import express from 'express';
import type { Coverage } from '../journeys/coverage.js';
import { requireToken, type Tokens } from './auth.js';
import { ok, send } from './reply.js';

export function coverageRouter(opts: { tokens: Tokens; coverage: Coverage }) {
  const router = express.Router();
  router.get(
    '/api/coverage',
    requireToken(opts.tokens),
    send(() => ok(opts.coverage.report())),
  );
  return router;
}
