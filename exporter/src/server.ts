// Wires the collectors, the registry, the journey store, the Celery consumer, dead-letter parking
// and the receivers into the exporter's apps: the main one (the APIs, the probes, and /metrics and
// POST /v1/traces unless they have ports of their own), metricsApp, and OTLP/gRPC. With a port of
// its own (ACKTRAIL_INGEST_PORT) OTLP, HTTP and gRPC, runs on the ingest thread (receiver/thread/).
// listen.ts puts them on their ports.
import express from 'express';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ValidatedConfig } from './config.js';
import { ReadOnlyPools } from './db/pool.js';
import { CollectorRunner, RABBITMQ_STATS, createCollectors } from './collectors/index.js';
import { CatalogRefresh } from './collectors/catalog-refresh.js';
import { Parts } from './parts.js';
import { Health } from './health.js';
import type { Logger } from './log.js';
import { REVISION, VERSION } from './version.js';
import { eventsRouter } from './api/events.js';
import { JourneyMetrics } from './journeys/metrics.js';
import { PipelineReader } from './journeys/assemble/rows.js';
import { journeyStore } from './journeys/store/from-config.js';
import { MemoryBudget } from './runtime/memory.js';
import { CeleryIntake } from './celery/intake.js';
import { celeryTransport } from './celery/transport.js';
import { CeleryMetrics } from './celery/metrics.js';
import { receiverRouter } from './receiver/route.js';
import { Ingest } from './receiver/ingest.js';
import { OtlpGrpcReceiver } from './receiver/grpc.js';
import { BodyDecoder } from './receiver/decoder.js';
import { Coverage } from './receiver/coverage.js';
import { coverageRouter } from './api/coverage.js';
import { queuesRouter } from './api/queues.js';
import type { QueueLookup } from './broker/catalog.js';
import { Parking } from './deadletters/index.js';
import { deadLettersRouter } from './api/dead-letters.js';
import { Exemplars } from './exposition/exemplars.js';
import { metricsHandler } from './api/metrics.js';
import { requireScrapeToken } from './api/auth.js';
import { probesRouter, threadProbes } from './api/probes.js';
import { IngestThread, threadData } from './receiver/thread/main.js';

/** Journey API reads of the pipeline's rows end after this long. */
const PIPELINE_READ_TIMEOUT_MS = 5000;

export interface Exporter {
  /** The main listener (ACKTRAIL_PORT): the APIs, the probes, and what has no port of its own. */
  app: express.Express;
  /** /metrics and the probes, when ACKTRAIL_METRICS_PORT is set; null: /metrics is on `app`. */
  metricsApp: express.Express | null;
  /** OTLP/HTTP and gRPC on their own event loop, when ACKTRAIL_INGEST_PORT is set. */
  ingestThread: IngestThread | null;
  /** OTLP/gRPC on this loop, when ACKTRAIL_OTLP_GRPC_PORT is set and there is no ingest thread. */
  otlpGrpc: OtlpGrpcReceiver | null;
  /** Told by listen() once every configured listener is up: /readyz waits for it. */
  listening(): void;
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
    help: 'acktrail build information: its version and the source revision it was built from; always 1.',
    labelNames: ['version', 'revision'],
    registers: [registry],
  }).set({ version: VERSION, revision: REVISION }, 1);
  // process_* and nodejs_*: the exporter's own CPU, memory, event loop and GC, as every Node
  // service exposes them.
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool and the OpenMetrics specification refuse a gauge with
  // `_total`): their per-type twins without the suffix stay (nodejs_active_handles{type}, …).
  for (const name of ['handles', 'requests', 'resources'])
    registry.removeSingleMetric(`nodejs_active_${name}_total`);
  const health = new Health(registry, log);
  const memory = new MemoryBudget(config.memory.budgetBytes, registry);
  memory.start();
  const exemplars = new Exemplars();

  const pools = config.databaseUrl
    ? new ReadOnlyPools(config.databaseUrl, config.pooler, (err) => {
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
  if (!store)
    log.warn('no journey store (ACKTRAIL_DATABASE_URL or DATABASE_URL): /v1/traces answers 503');
  // What the broker does with a rejected message, per queue: for journeys, anomalies, metrics.
  const queues: QueueLookup = (queue) => catalog?.queue(queue) ?? null;
  const metrics = new JourneyMetrics(
    registry,
    queues,
    () => catalog?.names() ?? [],
    exemplars,
    config.journeys.words.results,
  );
  const coverage = new Coverage(registry);
  const celery = config.celery.enabled
    ? celeryTransport(
        new CeleryIntake(
          config.celery,
          config.journeys.retentionDays,
          new CeleryMetrics(registry, config.celery),
          store?.steps ?? null,
          log,
        ),
        health,
        log,
        memory,
      )
    : null;
  const parking =
    config.deadLetters.enabled && store
      ? new Parking(config, store, catalog, registry, health, log, memory)
      : null;
  // The background parts, started in this order and stopped in the reverse one. Journeys read
  // the queue catalog: it is kept as fresh as its interval without waiting for scrapes.
  const parts = new Parts(
    [
      store,
      catalog && store
        ? new CatalogRefresh(runner, RABBITMQ_STATS, config.rabbitmq.statsIntervalSeconds * 1000)
        : null,
      celery,
      parking,
    ].filter((part) => part !== null),
  );
  parts.start();

  let accepting = true;
  const decoder = new BodyDecoder(
    config.journeys.decodeOffThreadBytes,
    config.journeys.maxBodyBytes,
  );
  const ingest = new Ingest({
    store,
    metrics,
    log,
    limits: {
      ...config.journeys,
      bodyIdleMs: config.journeys.bodyIdleTimeoutSeconds * 1000,
      bodyMs: config.journeys.bodyTimeoutSeconds * 1000,
    },
    retentionDays: config.journeys.retentionDays,
    ingestToken: config.journeys.ingestToken,
    accepting: () => accepting,
    memory,
    queues,
    exchanges: () => catalog?.exchangeIndex ?? null,
    coverage,
    decoder,
  });
  const app = newApp(() => accepting);
  const metricsApp = config.metricsPort === null ? null : newApp(() => accepting);
  if (config.ingestPort === null) app.use(receiverRouter(ingest));
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
      parked: parking ? (ids) => parking.store.ofEvents(ids) : null,
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
      maxConcurrentReadsPerToken: config.deadLetters.maxConcurrentReadsPerToken,
      log,
    }),
  );

  const scrapeGuard = requireScrapeToken(config.metricsToken);
  (metricsApp ?? app).get('/metrics', scrapeGuard, metricsHandler(registry, runner, exemplars));

  let listening = false;
  const probing = {
    listening: () => listening,
    accepting: () => accepting,
    store: store !== null,
    parts,
    runner,
    configFile: config.configFile,
    replica: store?.reads ?? null,
  };
  const probes = probesRouter({ ...probing, guard: scrapeGuard });
  for (const a of [app, metricsApp]) a?.use(probes);
  const ingestThread =
    config.ingestPort === null
      ? null
      : new IngestThread(
          ingest,
          threadProbes(probing, config.metricsToken),
          threadData(config),
          log,
        );
  const otlpGrpc =
    config.otlpGrpcPort === null || ingestThread ? null : new OtlpGrpcReceiver(ingest);

  return {
    app,
    metricsApp,
    ingestThread,
    otlpGrpc,
    listening: () => {
      listening = true;
    },
    runner,
    registry,
    health,
    ready: store ? store.whenReady() : Promise.resolve(),
    stopAccepting: () => {
      accepting = false;
      ingestThread?.stopAccepting();
    },
    close: async () => {
      accepting = false;
      await ingestThread?.close(config.shutdownTimeoutMs);
      await otlpGrpc?.close();
      await parts.stop();
      await pools?.end();
      await decoder.close();
      memory.stop();
    },
  };
}

function newApp(accepting: () => boolean): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // An ETag would hash every multi-megabyte exposition; Prometheus never sends If-None-Match.
  app.set('etag', false);
  // While shutting down, no connection is kept for another request.
  app.use((_req, res, next) => {
    if (!accepting()) res.set('connection', 'close');
    next();
  });
  return app;
}
