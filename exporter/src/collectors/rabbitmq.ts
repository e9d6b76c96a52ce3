// RabbitMQ queue depths and consumers, every scrape. Source (chosen by measurement, see
// docs/benchmarks.md): the broker's /metrics/detailed endpoint, falling back to the management
// API (asking only for the needed columns) when that endpoint does not answer or when configured.
import { Gauge, type Registry } from 'prom-client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ValidatedConfig } from '../config.js';
import type { Collector } from './collector.js';
import { scopeFilter, type QueueCatalog } from './rabbitmq/catalog.js';
import { DETAILED_PATH, parseDetailed, type QueueDepth } from './rabbitmq/detailed.js';
import { getJson, getText } from './rabbitmq/http.js';

export const QUEUE_LABELS = ['vhost', 'queue', 'role'] as const;

interface ManagementQueue {
  vhost: string;
  name: string;
  messages_ready?: number;
  messages_unacknowledged?: number;
  consumers?: number;
}

export class RabbitmqQueuesCollector implements Collector {
  readonly name = 'rabbitmq';
  readonly timeoutMs: number;
  private readonly ready: Gauge;
  private readonly unacked: Gauge;
  private readonly consumers: Gauge;
  private readonly headAge: Gauge;
  private readonly inScope: (vhost: string, queue: string) => boolean;
  private series = new Map<string, Record<string, string>>();

  constructor(
    private readonly config: ValidatedConfig,
    private readonly catalog: QueueCatalog,
    registry: Registry,
  ) {
    this.timeoutMs = config.rabbitmq.timeoutSeconds * 1000;
    this.inScope = scopeFilter(config.rabbitmq);
    const labelNames = [...QUEUE_LABELS];
    this.ready = new Gauge({
      name: 'acktrail_queue_messages_ready',
      help: 'Messages ready for delivery.',
      labelNames,
      registers: [registry],
    });
    this.unacked = new Gauge({
      name: 'acktrail_queue_messages_unacked',
      help: 'Messages delivered and not yet acknowledged.',
      labelNames,
      registers: [registry],
    });
    this.consumers = new Gauge({
      name: 'acktrail_queue_consumers',
      help: 'Consumers on the queue.',
      labelNames,
      registers: [registry],
    });
    this.headAge = new Gauge({
      name: 'acktrail_queue_head_age_seconds',
      help: 'Age of the oldest ready message, from its timestamp property (broker statistics); 0 when the queue is empty or its messages carry no timestamp.',
      labelNames,
      registers: [registry],
    });
  }

  async collect(signal: AbortSignal): Promise<() => void> {
    // Roles come from the slow refresh; give its first run a moment so that the first scrape
    // already has the right role labels, without ever waiting on it for long.
    await Promise.race([
      this.catalog.loaded,
      sleep(this.timeoutMs / 2, undefined, { signal }).catch(() => undefined),
    ]);
    const depths = await this.read(signal);
    return () => {
      // Update in place and remove only the series of queues that are gone: resetting and
      // re-adding every series each scrape would churn memory with many queues.
      const seen = new Map<string, Record<string, string>>();
      const now = Date.now();
      for (const q of depths) {
        if (!this.inScope(q.vhost, q.queue)) continue;
        const labels = {
          vhost: q.vhost,
          queue: q.queue,
          role: this.catalog.role(q.vhost, q.queue),
        };
        seen.set(`${q.vhost}\u0000${q.queue}\u0000${labels.role}`, labels);
        this.ready.set(labels, q.ready);
        this.unacked.set(labels, q.unacked);
        this.consumers.set(labels, q.consumers);
        this.headAge.set(labels, this.catalog.headAge(q.vhost, q.queue, q.ready, now));
      }
      for (const [key, labels] of this.series) {
        if (seen.has(key)) continue;
        this.ready.remove(labels);
        this.unacked.remove(labels);
        this.consumers.remove(labels);
        this.headAge.remove(labels);
      }
      this.series = seen;
    };
  }

  clear(): void {
    this.ready.reset();
    this.unacked.reset();
    this.consumers.reset();
    this.headAge.reset();
    this.series.clear();
  }

  private async read(signal: AbortSignal): Promise<Iterable<QueueDepth>> {
    const { source } = this.config.rabbitmq;
    if (source !== 'management') {
      try {
        return (await this.fromDetailed(signal)).values();
      } catch (err) {
        if (source === 'prometheus' || signal.aborted) throw err;
      }
    }
    return this.fromManagement(signal);
  }

  private async fromDetailed(signal: AbortSignal) {
    const vhosts = this.config.rabbitmq.vhosts
      .map((v) => `&vhost=${encodeURIComponent(v)}`)
      .join('');
    return parseDetailed(await getText(this.config.prometheusUrl, DETAILED_PATH + vhosts, signal));
  }

  private async fromManagement(signal: AbortSignal): Promise<QueueDepth[]> {
    const columns = 'columns=vhost,name,messages_ready,messages_unacknowledged,consumers';
    const paths = this.config.rabbitmq.vhosts.length
      ? this.config.rabbitmq.vhosts.map((v) => `/api/queues/${encodeURIComponent(v)}?${columns}`)
      : [`/api/queues?${columns}`];
    const lists = await Promise.all(
      paths.map((p) => getJson<ManagementQueue[]>(this.config.managementUrl, p, signal)),
    );
    return lists.flat().map((q) => ({
      vhost: q.vhost,
      queue: q.name,
      ready: q.messages_ready ?? 0,
      unacked: q.messages_unacknowledged ?? 0,
      consumers: q.consumers ?? 0,
    }));
  }
}
