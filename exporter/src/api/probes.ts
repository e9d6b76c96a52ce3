// The probes every listener answers: /healthz (liveness), /readyz (readiness, for a Service) and
// /status (every dependency's state with its last error).
import express from 'express';
import type { CollectorRunner } from '../collectors/index.js';
import type { ReplicaReads } from '../journeys/store/index.js';
import type { Parts } from '../runtime/parts.js';
import { readiness, serving } from './readiness.js';
import { VERSION } from '../version.js';
import type { ProbeAnswer, ThreadProbes } from '../receiver/thread/messages.js';
import { SCRAPE_REFUSAL, scrapeGrant } from './auth.js';

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
  replica: ReplicaReads | null;
  /** Guards /status (internal hosts, the config path): ACKTRAIL_METRICS_TOKEN. */
  guard: express.RequestHandler;
}

export type { ProbeAnswer };

/** /readyz and /status as answers, for the router below and the ingest thread's listener. */
export function probeAnswers(o: Omit<ProbeOptions, 'guard'>) {
  return {
    // Readiness: this replica can serve what it is for (its listeners are up, and the journey
    // store answers when journeys are on). A broker or pipeline database away is not a reason to
    // take it out of a Service: that is what /status, the metrics and the alerts say.
    readyz(): ProbeAnswer {
      const r = serving({
        listening: o.listening(),
        accepting: o.accepting(),
        store: o.store ? o.parts.health() : null,
      });
      return { status: r.status === 'ready' ? 200 : 503, body: r };
    },
    // Every dependency's state, with its last error (what /readyz answered before 0.6).
    status(): ProbeAnswer {
      const r = readiness(o.runner.status(), o.parts.health(), o.accepting());
      return {
        status: 200,
        body: {
          ...r,
          // The journey API's read replica, where there is one: reads fall back to the primary,
          // so a replica away is not a reason to be unready.
          ...(o.replica?.configured ? { replica: o.replica.status() } : {}),
          version: VERSION,
          config: o.configFile ?? 'defaults',
        },
      };
    },
  };
}

/** The answers for the ingest thread's port: /status with the metrics token checked here. */
export function threadProbes(
  o: Omit<ProbeOptions, 'guard'>,
  metricsToken: string | null,
): ThreadProbes {
  const answers = probeAnswers(o);
  const granted = scrapeGrant(metricsToken);
  return {
    readyz: () => answers.readyz(),
    status: (authorization) =>
      granted(authorization) ? answers.status() : { status: 401, body: { error: SCRAPE_REFUSAL } },
  };
}

export function probesRouter(o: ProbeOptions): express.Router {
  const answers = probeAnswers(o);
  const probes = express.Router();
  // Liveness: the process answers. Nothing it depends on is checked here.
  probes.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  probes.get('/readyz', (_req, res) => {
    const a = answers.readyz();
    res.status(a.status).json(a.body);
  });
  probes.get('/status', o.guard, (_req, res) => {
    const a = answers.status();
    res.status(a.status).json(a.body);
  });
  return probes;
}
