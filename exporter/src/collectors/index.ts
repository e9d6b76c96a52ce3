// Registration in one place: which collectors run, from the validated configuration.
import type { Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import type { Pool } from '../db/pool.js';
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

export function createCollectors(
  config: ValidatedConfig,
  registry: Registry,
  pool: Pool | null,
): Collector[] {
  const collectors: Collector[] = [];
  if (config.rabbitmq.enabled) {
    const catalog = new QueueCatalog();
    collectors.push(new RabbitmqQueuesCollector(config, catalog, registry));
    collectors.push(new RabbitmqStatsCollector(config, catalog));
  }
  if (pool) {
    if (config.outbox.enabled) collectors.push(new OutboxCollector(pool, config, registry));
    if (config.confirmations.enabled)
      collectors.push(new ConfirmationsCollector(pool, config, registry));
    if (config.notifications.enabled)
      collectors.push(new NotificationsCollector(pool, config, registry));
    if (config.provider.enabled) collectors.push(new ProviderCollector(pool, config, registry));
  }
  return collectors;
}
