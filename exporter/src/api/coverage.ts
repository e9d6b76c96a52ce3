// GET /api/coverage: what the spans received so far let journeys read, per service and stage,
// with the one-line fix for each gap (receiver/coverage.ts). Needs the API token.
import express from 'express';
import type { Coverage } from '../receiver/coverage.js';
import { requireToken } from './auth.js';

export function coverageRouter(opts: { token: string | null; coverage: Coverage }) {
  const router = express.Router();
  router.get('/api/coverage', requireToken(opts.token), (_req, res) => {
    res.json(opts.coverage.report());
  });
  return router;
}
