// The probes every listener answers: /healthz (liveness), /readyz (readiness, for a Service) and
// /status (every dependency's state with its last error).
import express from 'express';
import type { CollectorRunner } from '../collectors/index.js';
import type { StoreReads } from '../journeys/store/reads.js';
import type { Parts } from '../parts.js';
import { readiness, serving } from '../readiness.js';
import { VERSION } from '../version.js';

export interface ProbeOptions {
  /** The listeners are up. */
  listening: () => boolean;
  /** False once the exporter is shutting down. */
  accepting: () => boolean;
  /** Journeys are on: /readyz waits for their store. */
  store: boolean;
  /** The background parts, each with its health. */
  parts: Parts;
  runner: CollectorRunner;
  configFile: string | null;
  /** The journey store's read replica, when there is one. */
  replica: StoreReads | null;
  /** Guards /status (internal hosts, the config path): ACKTRAIL_METRICS_TOKEN. */
  guard: express.RequestHandler;
}

export function probesRouter(o: ProbeOptions): express.Router {
  const probes = express.Router();
  // Liveness: the process answers. Nothing it depends on is checked here.
  probes.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Readiness: this replica can serve what it is for (its listeners are up, and the journey store
  // answers when journeys are on). A broker or pipeline database away is not a reason to take it
  // out of a Service: that is what /status, the metrics and the alerts say.
  probes.get('/readyz', (_req, res) => {
    const r = serving({
      listening: o.listening(),
      accepting: o.accepting(),
      store: o.store ? o.parts.health() : null,
    });
    res.status(r.status === 'ready' ? 200 : 503).json(r);
  });
  // Every dependency's state, with its last error (what /readyz answered before 0.6).
  probes.get('/status', o.guard, (_req, res) => {
    const r = readiness(o.runner.status(), o.parts.health(), o.accepting());
    res.json({
      ...r,
      // The journey API's read replica, where there is one: reads fall back to the primary, so
      // a replica away is not a reason to be unready.
      ...(o.replica?.configured ? { replica: o.replica.status() } : {}),
      version: VERSION,
      config: o.configFile ?? 'defaults',
    });
  });
  return probes;
}
