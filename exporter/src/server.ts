// Routes only: GET /metrics, GET /healthz, GET /readyz, POST /v1/traces, /api/events,
// /api/queues and /api/dead-letters. Wires the collectors, the registry, the journey store, the Celery consumer,
// dead-letter parking and the APIs.
import express from 'express';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ValidatedConfig } from './config.js';
import { ReadOnlyPools } from './db/pool.js';
import { CollectorRunner, RABBITMQ_STATS, createCollectors } from './collectors/index.js';
import { Health } from './health.js';
import type { Logger } from './log.js';
import { VERSION } from './version.js';
import { eventsRouter } from './api/events.js';
import { JourneyMetrics } from './journeys/metrics.js';
import { PipelineReader } from './journeys/assemble/rows.js';
import { JourneyStore } from './journeys/store/supervisor.js';
import { CeleryConsumer } from './celery/consumer.js';
import { CeleryMetrics } from './celery/metrics.js';
import { receiverRouter } from './receiver/route.js';
import { BodyDecoder } from './receiver/decoder.js';
import { Coverage } from './receiver/coverage.js';
import { coverageRouter } from './api/coverage.js';
import { queuesRouter } from './api/queues.js';
import type { QueueLookup } from './collectors/index.js';
import { readiness } from './readiness.js';
import { Parking } from './deadletters/index.js';
import { deadLettersRouter } from './api/dead-letters.js';
import { Exemplars } from './exposition/exemplars.js';
import {
  OFFERS,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
  toOpenMetrics,
} from './exposition/openmetrics.js';

const LARGE_EXPOSITION = 1_000_000;
/** Journey API reads of the pipeline's rows end after this long. */
const PIPELINE_READ_TIMEOUT_MS = 5000;

export interface Exporter {
  app: express.Express;
  runner: CollectorRunner;
  registry: Registry;
  health: Health;
  /** Resolves once the journey store is migrated (at once when there is none). */
  ready: Promise<void>;
  /** From now on /v1/traces refuses new requests (503); the rest keeps answering. */
  stopAccepting(): void;
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
  // process_* and nodejs_*: the exporter's own CPU, memory, event loop and GC, as every Node
  // service exposes them.
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool and the OpenMetrics specification refuse a gauge with
  // `_total`): their per-type twins without the suffix stay (nodejs_active_handles{type}, …).
  for (const name of ['handles', 'requests', 'resources'])
    registry.removeSingleMetric(`nodejs_active_${name}_total`);
  const health = new Health(registry, log);
  const exemplars = new Exemplars();

  const pools = config.databaseUrl
    ? new ReadOnlyPools(config.databaseUrl, (err) => {
        health.error('pipeline_database', err, 'pipeline database connection lost');
      })
    : null;
  if (!pools)
    log.warn(
      'DATABASE_URL is not set: the outbox, confirmations, notifications and provider collectors are off',
    );
  const store = config.storeUrl ? journeyStore(config, health, log, registry) : null;
  const { collectors, catalog } = createCollectors(
    config,
    registry,
    pools,
    store?.reads ?? null,
    exemplars,
  );
  const runner = new CollectorRunner(collectors, registry, log);

  // Journeys read the queue catalog: keep it as fresh as its interval without waiting for scrapes.
  const catalogTimer =
    catalog && store
      ? setInterval(() => {
          runner.keepFresh(RABBITMQ_STATS);
        }, config.rabbitmq.statsIntervalSeconds * 1000).unref()
      : null;
  if (catalogTimer) runner.keepFresh(RABBITMQ_STATS);
  if (!store)
    log.warn('no journey store (ACKTRAIL_DATABASE_URL or DATABASE_URL): /v1/traces answers 503');
  // What the broker does with a rejected message, per queue: for journeys, anomalies, metrics.
  const queues: QueueLookup = (queue) => catalog?.queue(queue) ?? null;
  const metrics = new JourneyMetrics(registry, queues, () => catalog?.names() ?? [], exemplars);
  const coverage = new Coverage(registry);
  const celery = config.celery.enabled
    ? new CeleryConsumer(
        config.celery,
        config.journeys.retentionDays,
        new CeleryMetrics(registry, config.celery),
        store?.steps ?? null,
        health,
        log,
      )
    : null;
  celery?.start();
  const parking =
    config.deadLetters.enabled && store
      ? new Parking(
          config,
          store.pool,
          store.steps,
          () => store.ready,
          catalog,
          registry,
          health,
          log,
        )
      : null;
  parking?.start(store?.whenReady() ?? Promise.resolve());

  let accepting = true;
  const decoder = new BodyDecoder(
    config.journeys.decodeOffThreadBytes,
    config.journeys.maxBodyBytes,
  );
  const app = express();
  app.disable('x-powered-by');
  // An ETag would hash every multi-megabyte exposition; Prometheus never sends If-None-Match.
  app.set('etag', false);
  // While shutting down, no connection is kept for another request.
  app.use((_req, res, next) => {
    if (!accepting) res.set('connection', 'close');
    next();
  });
  app.use(
    receiverRouter({
      store,
      metrics,
      log,
      limits: { ...config.journeys, bodyIdleMs: config.journeys.bodyIdleTimeoutSeconds * 1000 },
      retentionDays: config.journeys.retentionDays,
      ingestToken: config.journeys.ingestToken,
      accepting: () => accepting,
      queues,
      coverage,
      decoder,
    }),
  );
  const tokens = { read: config.apiToken, operate: config.operatorToken };
  app.use(coverageRouter({ tokens, coverage }));
  app.use(queuesRouter({ tokens, catalog }));
  app.use(
    eventsRouter({
      tokens,
      words: config.journeys.words,
      store,
      lists: {
        maxConcurrentPerToken: config.journeys.maxConcurrentListsPerToken,
        retentionDays: config.journeys.retentionDays,
      },
      pipeline: pools ? new PipelineReader(pools.create(PIPELINE_READ_TIMEOUT_MS), config) : null,
      assemble: {
        stuckAfterSeconds: config.journeys.stuckAfterSeconds,
        unackedAfterSeconds: config.journeys.unackedAfterSeconds,
        failedStatus: config.confirmations?.aggregates.failedValue ?? null,
        words: config.journeys.words,
        queues,
      },
      log,
    }),
  );

  app.use(
    deadLettersRouter({
      tokens,
      parking: parking && {
        store: parking.store,
        replayer: parking.replayer,
        jobs: parking.jobs,
        ready: () => store?.ready ?? false,
      },
      maxMessages: config.deadLetters.replay.maxMessages,
      log,
    }),
  );

  // One exposition of every registry, in the format the scraper asks for (Accept): the text
  // format by default, OpenMetrics (with exemplars) when asked.
  app.get('/metrics', async (req, res) => {
    await runner.collect();
    const [own, collectors] = await Promise.all([registry.metrics(), runner.exposition()]);
    const text = `${own}\n${collectors}`;
    const openMetrics = req.accepts(OFFERS) === OFFERS[1];
    const body = openMetrics ? toOpenMetrics(text, exemplars) : text;
    res
      .set('content-type', openMetrics ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE)
      .set('vary', 'accept')
      .send(body);
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

  // Liveness: the process answers. Nothing it depends on is checked here.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', (_req, res) => {
    const r = readiness(runner.status(), health.status(), accepting);
    res.status(r.status === 'ready' ? 200 : 503).json({
      ...r,
      // The journey API's read replica, where there is one: reads fall back to the primary, so
      // a replica away is not a reason to be unready.
      ...(store?.reads.configured ? { replica: store.reads.status() } : {}),
      version: VERSION,
      config: config.configFile ?? 'defaults',
    });
  });

  return {
    app,
    runner,
    registry,
    health,
    ready: store ? store.whenReady() : Promise.resolve(),
    stopAccepting: () => {
      accepting = false;
    },
    close: async () => {
      accepting = false;
      if (catalogTimer) clearInterval(catalogTimer);
      await celery?.close();
      await parking?.close();
      await store?.close();
      await pools?.end();
      await decoder.close();
    },
  };
}

function journeyStore(
  config: ValidatedConfig,
  health: Health,
  log: Logger,
  registry: Registry,
): JourneyStore {
  const j = config.journeys;
  const store = new JourneyStore(
    {
      url: config.storeUrl!,
      readUrl: config.storeReadUrl,
      maxReadLagSeconds: j.maxReadLagSeconds,
      retentionDays: j.retentionDays,
      maxPendingSteps: j.maxPendingSteps,
      readPoolSize: j.readPoolSize,
      statementTimeoutMs: j.statementTimeoutSeconds * 1000,
      lockTimeoutMs: j.lockTimeoutSeconds * 1000,
    },
    health,
    log,
    registry,
  );
  store.start();
  return store;
}
