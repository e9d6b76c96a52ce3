// Wires the collectors, the registry, the journey store, the Celery consumer, dead-letter parking
// and the receivers into the exporter's apps: the main one (the APIs, the probes, and /metrics and
// POST /v1/traces unless they have ports of their own), metricsApp, and OTLP/gRPC. With a port of
// its own (ACKTRAIL_INGEST_PORT) OTLP, HTTP and gRPC, runs on the ingest thread (receiver/thread/).
// listen.ts puts them on their ports.
import express from 'express';
import type { Registry } from 'prom-client';
import type { ValidatedConfig } from './config.js';
import { ReadOnlyPools } from './db/pool.js';
import { CollectorRunner, createCollectors, type QueueBoard } from './collectors/index.js';
import { ManagementApi } from './collectors/rabbitmq/source/http.js';
import { TopologyRefresh } from './broker/refresh.js';
import { Parts } from './runtime/parts.js';
import { Health } from './runtime/health.js';
import type { Logger } from './log.js';
import { JourneyMetrics, NO_BROKER, type BrokerNames } from './journeys/metrics.js';
import { SettleWatch, type CountedQueue } from './journeys/settle-watch.js';
import { journeyStore } from './journeys/store/index.js';
import type { JourneyStore } from './journeys/store/index.js';
import { MemoryBudget } from './runtime/memory.js';
import { CeleryIntake } from './celery/intake.js';
import { celeryTransport } from './celery/transport.js';
import { BusinessLookups } from './pipeline/lookups.js';
import { CeleryMetrics } from './celery/metrics.js';
import { receiverRouter } from './receiver/route.js';
import { Ingest } from './receiver/ingest.js';
import { ReceiverMetrics } from './receiver/metrics.js';
import { JourneyWriter } from './journeys/writer.js';
import { OtlpGrpcReceiver } from './receiver/grpc.js';
import { BodyDecoder } from './receiver/decoder.js';
import { Coverage } from './journeys/coverage.js';
import { ingestLimits } from './receiver/gate.js';
import type { QueueLookup } from './broker/topology.js';
import { Parking } from './deadletters/index.js';
import { Exemplars } from './exposition/exemplars.js';
import { exporterRegistry } from './exposition/registry.js';
import { mountApis } from './api/mount.js';
import { countInferredDeadLetters, readPath } from './journey-wiring.js';
import { metricsHandler } from './api/metrics.js';
import { requireScrapeToken } from './api/auth.js';
import { probesRouter, threadProbes, type ProbeOptions } from './api/probes.js';
import { IngestThread, threadData } from './receiver/thread/main.js';

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

/** What every part of the exporter shares: the registry, health, the memory budget, the log. */
interface Shared {
  registry: Registry;
  health: Health;
  memory: MemoryBudget;
  exemplars: Exemplars;
  log: Logger;
}

/** Where the data comes from: the pipeline's database, the journey store and the collectors. */
interface Sources {
  pools: ReadOnlyPools | null;
  store: JourneyStore | null;
  /** The broker's topology, refreshed by one part (null: rabbitmq is off). */
  topology: TopologyRefresh | null;
  /** What the RabbitMQ collectors read every scrape, for the queue API. */
  board: QueueBoard | null;
  runner: CollectorRunner;
  /** What the broker does with a rejected message, per queue: for journeys, anomalies, metrics. */
  queues: QueueLookup;
  /** The queues whose settles are left to the broker's evidence, and those traced consumers read. */
  watch: SettleWatch;
  /** The metrics journeys derive: from stored steps, and from parking where no span counted. */
  metrics: JourneyMetrics;
  /** What every span lets journeys read (GET /api/coverage), counted as the writer takes them. */
  coverage: Coverage;
  /** The one journey write path (null: no store). */
  writer: JourneyWriter | null;
}

export function createExporter(config: ValidatedConfig, log: Logger): Exporter {
  const registry = exporterRegistry();
  const memory = new MemoryBudget(config.memory.budgetBytes, registry);
  memory.start();
  const shared: Shared = {
    registry,
    health: new Health(registry, log),
    memory,
    exemplars: new Exemplars(),
    log,
  };
  const src = sources(config, shared);
  const { parts, parking } = backgroundParts(config, src, shared);
  if (parking) countInferredDeadLetters(parking, src);
  parts.start();

  let accepting = true;
  const decoder = new BodyDecoder(
    config.journeys.decodeOffThreadBytes,
    config.journeys.maxBodyBytes,
    config.lowerThreads,
  );
  const { coverage } = src;
  const ingest = newIngest(config, src, shared, { decoder, accepting: () => accepting });
  const app = newApp(() => accepting);
  const metricsApp = config.metricsPort === null ? null : newApp(() => accepting);
  if (config.ingestPort === null) app.use(receiverRouter(ingest.gate));
  const journeys = readPath(config, src, parking);
  const lookups = businessLookups(config, src.pools, log);
  mountApis(app, config, { ...src, journeys, parking, coverage, lookups, log });

  const { runner, store, pools } = src;
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
  mountScrapes(config, metricsApp ?? app, [app, metricsApp], probing, shared);
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
    config.otlpGrpcPort === null || ingestThread ? null : new OtlpGrpcReceiver(ingest.gate);
  shared.memory.countThreads(() => [...decoder.threads(), ...(ingestThread?.threads() ?? [])]);

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
    health: shared.health,
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

/** The configured business-key lookups, on the pipeline's read-only role (null: none to run). */
function businessLookups(
  config: ValidatedConfig,
  pools: ReadOnlyPools | null,
  log: Logger,
): BusinessLookups | null {
  if (!config.lookups.length) return null;
  if (!pools) {
    log.warn('lookups are configured but DATABASE_URL is not set: the lookups are off');
    return null;
  }
  return new BusinessLookups(pools, config.lookups);
}

/** /metrics on its listener, and the probes on each; both behind the metrics token, if any. */
function mountScrapes(
  config: ValidatedConfig,
  metricsOn: express.Express,
  apps: (express.Express | null)[],
  probing: Omit<ProbeOptions, 'guard'>,
  { registry, exemplars }: Shared,
): void {
  const guard = requireScrapeToken(config.metricsToken);
  metricsOn.get('/metrics', guard, metricsHandler(registry, probing.runner, exemplars));
  const probes = probesRouter({ ...probing, guard });
  for (const a of apps) a?.use(probes);
}

function sources(config: ValidatedConfig, shared: Shared): Sources {
  const { health, log, registry } = shared;
  const pools = config.databaseUrl
    ? new ReadOnlyPools(config.databaseUrl, config.pooler, (err) => {
        health.error('pipeline_database', err, 'pipeline database connection lost');
      })
    : null;
  if (!pools)
    log.warn(
      'DATABASE_URL is not set: the outbox, confirmations, aggregates and provider collectors are off',
    );
  const store = config.storeUrl ? journeyStore(config, health, log, registry) : null;
  if (!store)
    log.warn('no journey store (ACKTRAIL_DATABASE_URL or DATABASE_URL): /v1/traces answers 503');
  const api = config.rabbitmq.enabled ? new ManagementApi(config.managementUrl) : null;
  const topology = api ? new TopologyRefresh(config.rabbitmq, api, health, log, registry) : null;
  const watch = new SettleWatch();
  // The counters of the queues whose consumers record no settle go to the store, for journeys.
  const counted = (atMs: number, rows: readonly CountedQueue[]) => {
    const readings = store ? watch.readings(atMs, rows) : [];
    if (readings.length)
      store!.readings.record(readings).catch((err: unknown) => {
        health.error('journey_store', err, "recording the queues' counters failed");
      });
  };
  const { collectors, board } = createCollectors(
    config,
    registry,
    pools,
    store?.reads ?? null,
    shared.exemplars,
    topology && api ? { topology, api, counted } : null,
  );
  const runner = new CollectorRunner(collectors, registry, log);
  const queues: QueueLookup = (queue) => topology?.current.queue(queue) ?? null;
  const broker: BrokerNames = topology
    ? {
        loaded: () => topology.current.loaded,
        names: () => topology.current.names(),
        has: (queue) => topology.current.has(queue),
        hasExchange: (exchange) => topology.current.hasExchange(exchange),
      }
    : NO_BROKER;
  const metrics = new JourneyMetrics(
    registry,
    queues,
    broker,
    shared.exemplars,
    config.journeys.words.results,
  );
  const coverage = new Coverage(registry);
  const writer = store
    ? new JourneyWriter({
        store,
        metrics,
        log: shared.log,
        queues,
        exchanges: () => topology?.current.exchangeIndex ?? null,
        topology,
        coverage,
        health,
        watch,
      })
    : null;
  return { pools, store, topology, board, runner, queues, watch, metrics, coverage, writer };
}

/**
 * The background parts, started in this order and stopped in the reverse one: the broker
 * topology's refresh (the collectors, journeys and parking read it), the store, the Celery
 * consumer and dead-letter parking.
 */
function backgroundParts(
  config: ValidatedConfig,
  { store, topology, writer }: Sources,
  { registry, health, log, memory }: Shared,
): { parts: Parts; parking: Parking | null } {
  const celery = config.celery.enabled
    ? celeryTransport(
        new CeleryIntake(
          config.celery,
          config.journeys.retentionDays,
          new CeleryMetrics(registry, config.celery),
          writer,
          log,
        ),
        health,
        log,
        memory,
      )
    : null;
  const parking =
    config.deadLetters.enabled && store && writer
      ? new Parking(config, store, writer, topology, registry, health, log, memory)
      : null;
  const parts = new Parts([topology, store, celery, parking].filter((part) => part !== null));
  return { parts, parking };
}

function newIngest(
  config: ValidatedConfig,
  { writer }: Sources,
  { registry, memory }: Shared,
  o: { decoder: BodyDecoder; accepting: () => boolean },
): Ingest {
  const { journeys } = config;
  return new Ingest({
    writer,
    metrics: new ReceiverMetrics(registry),
    limits: ingestLimits(config),
    retentionDays: journeys.retentionDays,
    ingestToken: journeys.ingestToken,
    accepting: o.accepting,
    memory,
    decoder: o.decoder,
  });
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
