// RabbitMQ per-queue message counters (published, delivered, acked, redelivered) and the queue
// arguments and bindings that roles are inferred from. RabbitMQ 3.10's /metrics/detailed has no
// per-queue counters, so they come from the management API, which is expensive with many queues:
// this collector refreshes in the background, at most every statsIntervalSeconds and at most once
// per 100 times its last refresh took (so that it keeps the management API busy 1 % of the time at
// most, however many queues there are); its data age is
// acktrail_collector_data_age_seconds{collector="rabbitmq_stats"}. Its 40,000 series at 10,000
// queues change only when it runs, so they live in a registry of their own whose text is cached.
// Each refresh is also one observation of every work queue (ready, consumers, acks) for its
// health status (rabbitmq/status.ts), and says each queue's type (acktrail_queue_info).
import { Counter, Gauge, Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import type { Collector } from './collector.js';
import { scopeFilter, type QueueCatalog, type QueueFacts } from './rabbitmq/catalog.js';
import { queueKey } from './rabbitmq/detailed.js';
import type { ManagementApi } from './rabbitmq/http.js';
import { inferRoles, type BindingInfo, type QueueInfo, type Role } from './rabbitmq/roles.js';
import { QUEUE_LABELS } from './rabbitmq.js';
import {
  QUEUE_STATUSES,
  StatusWindows,
  type Evaluation,
  type Observation,
} from './rabbitmq/status.js';

interface StatsQueue extends QueueInfo {
  type?: string;
  /** A classic queue's node; for a quorum queue, its leader's (also in `leader`). */
  node?: string;
  leader?: string;
  effective_policy_definition?: Record<string, unknown> | null;
  head_message_timestamp?: number | null;
  messages_ready?: number;
  consumers?: number;
  message_stats?: { publish?: number; deliver_get?: number; ack?: number; redeliver?: number };
}

const COUNTERS = {
  publish: [
    'acktrail_queue_messages_published_total',
    'Messages published into the queue (broker statistics).',
  ],
  deliver_get: [
    'acktrail_queue_messages_delivered_total',
    'Messages delivered or fetched from the queue (broker statistics).',
  ],
  ack: ['acktrail_queue_messages_acked_total', 'Deliveries acknowledged (broker statistics).'],
  redeliver: [
    'acktrail_queue_messages_redelivered_total',
    'Deliveries with the redelivered flag (broker statistics).',
  ],
} as const;

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const exchange = (v: unknown) => (typeof v === 'string' ? v : null);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/**
 * What the queue does with a rejected message. Its own argument wins over a policy for the
 * dead-letter exchange; for the delivery limit the lower of the two holds. A quorum queue on
 * RabbitMQ 4 has a delivery limit of 20 unless told otherwise.
 */
export function queueFacts(q: StatsQueue, role: Role, brokerMajor: number): QueueFacts {
  const policy = q.effective_policy_definition ?? {};
  const type = q.type ?? str(q.arguments['x-queue-type']) ?? 'classic';
  const limits = [int(q.arguments['x-delivery-limit']), int(policy['delivery-limit'])].filter(
    (n): n is number => n !== null,
  );
  const deliveryLimit =
    type !== 'quorum' ? null : limits.length ? Math.min(...limits) : brokerMajor >= 4 ? 20 : null;
  return {
    vhost: q.vhost,
    type,
    role,
    // '' is the default exchange: a dead-letter exchange all the same.
    deadLetterExchange:
      exchange(q.arguments['x-dead-letter-exchange']) ?? exchange(policy['dead-letter-exchange']),
    deadLetterRoutingKey:
      str(q.arguments['x-dead-letter-routing-key']) ?? str(policy['dead-letter-routing-key']),
    deliveryLimit,
  };
}

export const RABBITMQ_STATS = 'rabbitmq_stats';

export class RabbitmqStatsCollector implements Collector {
  readonly name = RABBITMQ_STATS;
  readonly timeoutMs: number;
  private readonly baseIntervalMs: number;
  private lastRunMs = 0;
  private readonly registry = new Registry();
  private cachedText: string | null = null;
  private readonly counters: Record<keyof typeof COUNTERS, Counter>;
  private readonly info: Gauge;
  private readonly status: Gauge;
  private readonly windows = new StatusWindows();
  private readonly inScope: (vhost: string, queue: string) => boolean;

  constructor(
    private readonly config: ValidatedConfig,
    private readonly catalog: QueueCatalog,
    private readonly api: ManagementApi,
  ) {
    // Listing every queue with statistics is the slow call: give it more time than a scrape.
    this.timeoutMs = Math.max(config.rabbitmq.timeoutSeconds * 1000, 30_000);
    this.baseIntervalMs = config.rabbitmq.statsIntervalSeconds * 1000;
    this.inScope = scopeFilter(config.rabbitmq);
    const make = ([name, help]: readonly [string, string]) =>
      new Counter({ name, help, labelNames: [...QUEUE_LABELS], registers: [this.registry] });
    this.counters = {
      publish: make(COUNTERS.publish),
      deliver_get: make(COUNTERS.deliver_get),
      ack: make(COUNTERS.ack),
      redeliver: make(COUNTERS.redeliver),
    };
    this.info = new Gauge({
      name: 'acktrail_queue_info',
      help: "Always 1: each queue in scope with its role and type (classic, quorum, stream), to join the broker's own series by role.",
      labelNames: [...QUEUE_LABELS, 'type'],
      registers: [this.registry],
    });
    this.status = new Gauge({
      name: 'acktrail_queue_status',
      help: "A work queue's health over its last 10 observations (Burrow's evaluation): 1 for its status (ok, warn: the backlog grows while consumers ack, stall: messages ready, consumers attached, no ack, stop: no consumer while messages wait), 0 for the others.",
      labelNames: [...QUEUE_LABELS, 'status'],
      registers: [this.registry],
    });
  }

  get minIntervalMs(): number {
    return Math.max(this.baseIntervalMs, 100 * this.lastRunMs);
  }

  exposition(): Promise<string> {
    if (this.cachedText !== null) return Promise.resolve(this.cachedText);
    return this.registry.metrics().then((text) => (this.cachedText = text));
  }

  async collect(signal: AbortSignal): Promise<() => void> {
    const started = performance.now();
    const { vhosts, roles: overrides } = this.config.rabbitmq;
    const columns =
      'columns=vhost,name,type,node,leader,arguments,effective_policy_definition,head_message_timestamp,messages_ready,consumers,message_stats.publish,message_stats.deliver_get,message_stats.ack,message_stats.redeliver';
    const bindingColumns = 'columns=vhost,source,destination,destination_type,routing_key';
    const per = (path: string, cols: string) =>
      vhosts.length
        ? vhosts.map((v) => `${path}/${encodeURIComponent(v)}?${cols}`)
        : [`${path}?${cols}`];
    const get = <T>(paths: string[]) =>
      Promise.all(paths.map((p) => this.api.getJson<T[]>(p, signal))).then((l) => l.flat());
    const [queues, bindings, exchanges, overview] = await Promise.all([
      get<StatsQueue>(per('/api/queues', columns)),
      get<BindingInfo>(per('/api/bindings', bindingColumns)),
      get<{ vhost: string; name: string; type: string }>(
        per('/api/exchanges', 'columns=vhost,name,type'),
      ),
      this.api.getJson<{ rabbitmq_version?: string }>(
        '/api/overview?columns=rabbitmq_version',
        signal,
      ),
    ]);
    const roles = inferRoles(queues, bindings, overrides);
    this.lastRunMs = performance.now() - started;
    return () => {
      this.cachedText = null;
      const heads = new Map<string, number>();
      const leaders = new Map<string, string>();
      for (const q of queues) {
        const key = queueKey(q.vhost, q.name);
        if (typeof q.head_message_timestamp === 'number') heads.set(key, q.head_message_timestamp);
        const leader = q.leader ?? q.node;
        if (leader) leaders.set(key, leader);
      }
      const major = Number(overview.rabbitmq_version?.split('.')[0] ?? 0);
      this.catalog.update({
        roles,
        heads,
        leaders,
        facts: queues.map((q) => ({
          name: q.name,
          ...queueFacts(q, roles.get(queueKey(q.vhost, q.name)) ?? 'work', major),
        })),
        routes: { bindings, exchanges },
      });
      for (const c of Object.values(this.counters)) c.reset();
      this.info.reset();
      this.status.reset();
      const now = Date.now();
      const observations = new Map<string, Observation>();
      for (const q of queues) {
        if (!this.inScope(q.vhost, q.name)) continue;
        const key = queueKey(q.vhost, q.name);
        const labels = { vhost: q.vhost, queue: q.name, role: roles.get(key) ?? 'work' };
        for (const field of Object.keys(COUNTERS) as (keyof typeof COUNTERS)[]) {
          // The broker's cumulative value, mirrored: a reset followed by one increment.
          this.counters[field].inc(labels, q.message_stats?.[field] ?? 0);
        }
        this.info.set({ ...labels, type: q.type ?? 'classic' }, 1);
        // A queue whose statistics the broker has not emitted yet lists no counts: not observed.
        if (labels.role === 'work' && q.messages_ready !== undefined)
          observations.set(key, {
            atMs: now,
            ready: q.messages_ready,
            consumers: q.consumers ?? 0,
            acked: q.message_stats?.ack ?? 0,
          });
      }
      this.windows.record(observations);
      const statuses = new Map<string, Evaluation>();
      for (const q of queues) {
        const key = queueKey(q.vhost, q.name);
        const e = this.windows.get(key);
        if (!e) continue;
        statuses.set(key, e);
        for (const status of QUEUE_STATUSES)
          this.status.set(
            { vhost: q.vhost, queue: q.name, role: 'work', status },
            status === e.status ? 1 : 0,
          );
      }
      this.catalog.updateStatuses(statuses);
    };
  }
}
