// Routes only: GET /metrics, GET /healthz, GET /readyz. Wires the collectors and the registry.
import express from 'express';
import { Gauge, Registry } from 'prom-client';
import type { ValidatedConfig } from './config.js';
import { createReadOnlyPool, type Pool } from './db/pool.js';
import { CollectorRunner, createCollectors } from './collectors/index.js';
import type { Logger } from './log.js';
import { VERSION } from './version.js';

const LARGE_EXPOSITION = 1_000_000;

export interface Exporter {
  app: express.Express;
  runner: CollectorRunner;
  registry: Registry;
  close(): Promise<void>;
}

export function createExporter(config: ValidatedConfig, log: Logger): Exporter {
  const registry = new Registry();
  new Gauge({
    name: 'acktrail_build_info',
    help: 'acktrail build information; always 1.',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version: VERSION }, 1);

  const timeouts = [config.outbox, config.confirmations, config.notifications, config.provider].map(
    (c) => c.timeoutSeconds,
  );
  const pool: Pool | null = config.databaseUrl
    ? createReadOnlyPool(config.databaseUrl, Math.max(...timeouts) * 1000)
    : null;
  if (!pool)
    log.warn(
      'DATABASE_URL is not set: the outbox, confirmations, notifications and provider collectors are off',
    );
  const runner = new CollectorRunner(createCollectors(config, registry, pool), registry, log);

  const app = express();
  app.disable('x-powered-by');
  // An ETag would hash every multi-megabyte exposition; Prometheus never sends If-None-Match.
  app.set('etag', false);

  app.get('/metrics', async (_req, res) => {
    await runner.collect();
    const [own, collectors] = await Promise.all([registry.metrics(), runner.exposition()]);
    const body = own + collectors;
    res.set('content-type', registry.contentType).send(body);
    // A large exposition (thousands of queues) leaves megabytes of strings that V8 keeps in its
    // large-object space until a full collection, which it puts off while memory grows: collect
    // once the answer is out, when the process runs with --expose-gc (npm run exporter does).
    const gc = globalThis.gc;
    if (body.length > LARGE_EXPOSITION && gc) {
      setImmediate(() => {
        gc();
      });
    }
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // Config was valid (or the process would not run); says which sources answered last time.
  app.get('/readyz', (_req, res) => {
    const sources = runner.status();
    const down = sources.filter((s) => s.up === false).map((s) => s.collector);
    res.json({
      // 'starting' until every collector has run once (the first scrape runs them).
      status: down.length ? 'degraded' : sources.some((s) => s.up === null) ? 'starting' : 'ready',
      version: VERSION,
      config: config.configFile ?? 'defaults',
      down,
      sources,
    });
  });

  return {
    app,
    runner,
    registry,
    close: async () => {
      await pool?.end();
    },
  };
}
