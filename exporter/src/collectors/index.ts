// Registration in one place: which collectors run, from the validated configuration.
import type { Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import type { ReadOnlyPools } from '../db/pool.js';
import type { Collector } from './collector.js';
import { ConfirmationsCollector } from './confirmations.js';
import { NotificationsCollector } from './notifications.js';
import { OutboxCollector } from './outbox.js';
import { ProviderCollector } from './provider.js';
import { RabbitmqQueuesCollector } from './rabbitmq.js';
import { RabbitmqStatsCollector } from './rabbitmq-stats.js';
import { QueueCatalog } from './rabbitmq/catalog.js';

export type { Collector } from './collector.js';
export { CollectorRunner, type SourceStatus } from './runner.js';

/**
 * The collectors the configuration turns on. Each SQL collector gets a pool of its own whose
 * statement timeout is the collector's timeout (pools: null without DATABASE_URL).
 */
export function createCollectors(
  config: ValidatedConfig,
  registry: Registry,
  pools: ReadOnlyPools | null,
): Collector[] {
  const pool = (section: { timeoutSeconds: number }) =>
    pools!.create(section.timeoutSeconds * 1000);
  const collectors: Collector[] = [];
  if (config.rabbitmq.enabled) {
    const catalog = new QueueCatalog();
    collectors.push(new RabbitmqQueuesCollector(config, catalog, registry));
    collectors.push(new RabbitmqStatsCollector(config, catalog));
  }
  if (pools) {
    const { outbox, confirmations, notifications, provider } = config;
    if (outbox.enabled) collectors.push(new OutboxCollector(pool(outbox), config, registry));
    if (confirmations.enabled)
      collectors.push(new ConfirmationsCollector(pool(confirmations), config, registry));
    if (notifications.enabled)
      collectors.push(new NotificationsCollector(pool(notifications), config, registry));
    if (provider.enabled) collectors.push(new ProviderCollector(pool(provider), config, registry));
  }
  return collectors;
}
