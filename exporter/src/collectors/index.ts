// Registration in one place: which collectors run, from the validated configuration.
import type { Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import type { ReadOnlyPools } from '../db/pool.js';
import type { Collector } from './runner/collector.js';
import { ConfirmationsCollector } from './sql/confirmations.js';
import { AggregatesCollector } from './sql/aggregates.js';
import { OutboxCollector } from './sql/outbox.js';
import { ProviderCollector } from './sql/provider.js';
import { QueueHeadsCollector } from './rabbitmq/heads.js';
import { RabbitmqQueuesCollector } from './rabbitmq/queues.js';
import { RabbitmqStatsCollector } from './rabbitmq/stats.js';
import { RabbitmqAcksCollector } from './rabbitmq/acks.js';
import type { ManagementApi } from './rabbitmq/source/http.js';
import type { TopologyRefresh } from '../broker/refresh.js';
import { QueueBoard } from './rabbitmq/board.js';
import { BrokerNodes } from './rabbitmq/source/nodes.js';
import { QueueStatuses } from './rabbitmq/queue-status.js';
import type { Reader } from '../journeys/store/index.js';
import type { Exemplars } from '../exposition/exemplars.js';

export type { Collector } from './runner/collector.js';
export { CollectorRunner, type SourceStatus } from './runner/runner.js';
export { RABBITMQ_STATS } from './rabbitmq/stats.js';
export type { QueueBoard } from './rabbitmq/board.js';

/**
 * The collectors the configuration turns on. Each SQL collector gets a pool of its own whose
 * statement timeout is the collector's timeout (pools: null without DATABASE_URL); the journey
 * store's pool (null without one) serves the queues' head ages from journeys. The RabbitMQ
 * collectors read the broker's topology from its refresh (`broker`: null when rabbitmq is off).
 */
export function createCollectors(
  config: ValidatedConfig,
  registry: Registry,
  pools: ReadOnlyPools | null,
  journeys: Reader | null = null,
  exemplars: Exemplars | null = null,
  broker: {
    topology: TopologyRefresh;
    api: ManagementApi;
    /** Hears each new answer's per-queue counters (RabbitmqStatsCollector). */
    counted?: ConstructorParameters<typeof RabbitmqStatsCollector>[4];
  } | null = null,
): { collectors: Collector[]; board: QueueBoard | null } {
  const pool = (section: { timeoutSeconds: number }) =>
    pools!.create(section.timeoutSeconds * 1000);
  const collectors: Collector[] = [];
  let board: QueueBoard | null = null;
  if (broker) {
    const { topology, api } = broker;
    board = new QueueBoard(topology);
    const r = config.rabbitmq;
    const nodes = new BrokerNodes(
      { nodes: r.nodes, prometheusUrl: config.prometheusUrl },
      api,
      r.statsIntervalSeconds * 1000,
    );
    const statuses = new QueueStatuses(r.statusWindowSeconds * 1000, board);
    collectors.push(
      new RabbitmqQueuesCollector(config, topology, board, nodes, api, statuses, registry),
    );
    collectors.push(
      new RabbitmqStatsCollector(config, topology, statuses, nodes, broker.counted ?? null),
    );
    collectors.push(new RabbitmqAcksCollector(config, api, statuses));
    if (journeys)
      collectors.push(
        new QueueHeadsCollector(
          journeys,
          board,
          config.journeys.retentionDays,
          r.statsIntervalSeconds,
          Math.max(r.timeoutSeconds, config.journeys.statementTimeoutSeconds),
        ),
      );
  }
  if (pools) {
    const { outbox, confirmations, aggregateCounts, provider } = config;
    const lateness = config.watermarkLatenessSeconds * 1000;
    if (outbox) collectors.push(new OutboxCollector(pool(outbox), outbox, lateness, registry));
    if (confirmations)
      collectors.push(
        new ConfirmationsCollector(
          pool(confirmations),
          confirmations,
          lateness,
          registry,
          journeys && exemplars ? { reads: journeys, exemplars } : null,
        ),
      );
    if (aggregateCounts)
      collectors.push(
        new AggregatesCollector(
          pool(aggregateCounts),
          aggregateCounts,
          confirmations?.aggregates,
          registry,
        ),
      );
    if (provider)
      collectors.push(new ProviderCollector(pool(provider), provider, lateness, registry));
  }
  return { collectors, board };
}
