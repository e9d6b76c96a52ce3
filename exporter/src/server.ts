// Routes only: GET /metrics, GET /healthz, GET /readyz, POST /v1/traces, GET /api/events.
// Wires the collectors, the registry, the journey store and the journey API.
import express from 'express';
import pg from 'pg';
import { Gauge, Registry } from 'prom-client';
import type { ValidatedConfig } from './config.js';
import { createReadOnlyPool, type Pool } from './db/pool.js';
import { CollectorRunner, createCollectors } from './collectors/index.js';
import type { Logger } from './log.js';
import { VERSION } from './version.js';
import { eventsRouter } from './api/events.js';
import { JourneyMetrics } from './journeys/metrics.js';
import { migrateStore } from './journeys/migrate.js';
import { PipelineReader } from './journeys/pipeline-rows.js';
import { StepQueries } from './journeys/queries.js';
import { StepStore } from './journeys/store.js';
import { CeleryConsumer } from './celery/consumer.js';
import { CeleryMetrics } from './celery/metrics.js';
import { receiverRouter } from './receiver/route.js';
import { errorMessage } from './log.js';

const LARGE_EXPOSITION = 1_000_000;
const RETENTION_EVERY_MS = 3_600_000;

export interface Exporter {
  app: express.Express;
  runner: CollectorRunner;
  registry: Registry;
  /** Resolves when the journey store is migrated (at once when there is none). */
  ready: Promise<void>;
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

  const journeys = createJourneys(config, log);
  const metrics = new JourneyMetrics(registry);
  const celery = config.celery.enabled ? startCelery(config, registry, journeys, log) : null;

  const app = express();
  app.disable('x-powered-by');
  // An ETag would hash every multi-megabyte exposition; Prometheus never sends If-None-Match.
  app.set('etag', false);
  app.use(
    receiverRouter({
      store: journeys.store,
      metrics,
      log,
      maxBodyBytes: config.journeys.maxBodyBytes,
      retentionDays: config.journeys.retentionDays,
      ready: journeys.ready,
    }),
  );
  app.use(
    eventsRouter({
      token: config.apiToken,
      queries: journeys.queries,
      pipeline: pool ? new PipelineReader(pool, config) : null,
      assemble: {
        stuckAfterSeconds: config.journeys.stuckAfterSeconds,
        unackedAfterSeconds: config.journeys.unackedAfterSeconds,
      },
      log,
      ready: journeys.ready,
    }),
  );

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
    ready: journeys.ready.catch(() => undefined),
    close: async () => {
      await celery?.close();
      journeys.stopRetention();
      await journeys.ready.catch(() => undefined);
      await Promise.all([pool?.end(), journeys.pool?.end()]);
    },
  };
}

/**
 * The Celery event consumer, started once the journey store is ready (or at once without one),
 * in the background: a broker that is not there yet never holds up /metrics.
 */
function startCelery(
  config: ValidatedConfig,
  registry: Registry,
  journeys: ReturnType<typeof createJourneys>,
  log: Logger,
) {
  const metrics = new CeleryMetrics(registry, config.celery);
  let closed = false;
  const started = journeys.ready
    .catch(() => undefined)
    .then(() => (closed ? null : CeleryConsumer.start(config.celery, metrics, journeys.store, log)))
    .catch((err: unknown) => {
      log.error({ err: errorMessage(err) }, 'celery: cannot consume the event stream');
      return null;
    });
  return {
    close: async () => {
      closed = true;
      await (await started)?.close();
    },
  };
}

/** The journey store: migrated at start, retention every hour. Absent without a store URL. */
function createJourneys(config: ValidatedConfig, log: Logger) {
  if (!config.storeUrl) {
    log.warn('no journey store (ACKTRAIL_DATABASE_URL or DATABASE_URL): /v1/traces answers 503');
    return {
      pool: null,
      store: null,
      queries: null,
      ready: Promise.resolve(),
      stopRetention: () => undefined,
    };
  }
  const pool = new pg.Pool({
    connectionString: config.storeUrl,
    max: 6,
    connectionTimeoutMillis: 5000,
    application_name: 'acktrail-journeys',
  });
  pool.on('error', () => undefined);
  const store = new StepStore(pool);
  const retention = async () => {
    const dropped = await store.partitions.dropExpired(config.journeys.retentionDays);
    if (dropped.length) log.info({ dropped }, 'journey partitions past retention dropped');
  };
  const ready = migrateStore(config.storeUrl).then(async (applied) => {
    if (applied.length) log.info({ applied }, 'journey store migrated');
    await retention();
  });
  ready.catch((err: unknown) => {
    log.error({ err: errorMessage(err) }, 'journey store unavailable: migrations failed');
  });
  const timer = setInterval(() => {
    retention().catch((err: unknown) => {
      log.warn({ err: errorMessage(err) }, 'journey retention failed; will retry');
    });
  }, RETENTION_EVERY_MS);
  timer.unref();
  return {
    pool,
    store,
    queries: new StepQueries(pool),
    ready,
    stopRetention: () => {
      clearInterval(timer);
    },
  };
}
