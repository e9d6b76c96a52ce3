// RabbitMQ per-queue message counters (published, delivered, acked, redelivered) and the queue
// arguments and bindings that roles are inferred from. The counters come from the broker's own
// /metrics/detailed where it has them (3.13, 4.x: rabbitmq/counters.ts), and from the management
// API's message_stats where it must (3.10 to 3.12). RabbitMQ 4 as the official image ships it has
// no statistics in the management API; with neither, the queue status is `unknown`, said by
// acktrail_rabbitmq_counters_source{source="none"}, /status and an alert, never silently absent.
// Listing queues from the management API is expensive with many queues: this collector refreshes
// in the background, at most every statsIntervalSeconds and at most once per 100 times its last
// refresh took (so that it keeps the management API busy 1 % of the time at most, however many
// queues there are); its data age is acktrail_collector_data_age_seconds{collector="rabbitmq_stats"}. Its 40,000 series at 10,000
// queues change only when it runs, so they live in a registry of their own whose text is cached.
// Each refresh is also one observation of every work queue (ready, consumers, acks) for its
// health status (rabbitmq/status.ts), and says each queue's type (acktrail_queue_info).
import { Counter, Gauge, Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import type { Collector } from './collector.js';
import { scopeFilter, type QueueCatalog } from '../broker/catalog.js';
import { queueKey } from './rabbitmq/detailed.js';
import { getText, type ManagementApi } from './rabbitmq/http.js';
import {
  COUNTERS_PATH,
  mergeCounters,
  parseCounters,
  type QueueCounters,
} from './rabbitmq/counters.js';
import type { BrokerNodes } from './rabbitmq/nodes.js';
import {
  COUNTER_SOURCES,
  countsOf,
  queueFacts,
  type CounterSource,
  type StatsQueue,
} from './rabbitmq/stats-queue.js';
import { inferRoles, type BindingInfo } from '../broker/roles.js';
import { QUEUE_LABELS } from './rabbitmq.js';
import {
  QUEUE_STATUSES,
  StatusWindows,
  type Evaluation,
  type Observation,
} from '../broker/status.js';

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

export const RABBITMQ_STATS = 'rabbitmq_stats';

const UNKNOWN_RULE =
  "no counters: the broker's /metrics/detailed has no queue_delivery_metrics and the management API no statistics (management_agent.disable_metrics_collector)";

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
  private readonly source: Gauge;
  private lastSource: CounterSource | null = null;
  /** A broker without the families (3.10 to 3.12) is asked again only after this (ms epoch). */
  private noFamiliesUntil = 0;
  private readonly windows = new StatusWindows();
  private readonly inScope: (vhost: string, queue: string) => boolean;

  constructor(
    private readonly config: ValidatedConfig,
    private readonly catalog: QueueCatalog,
    private readonly api: ManagementApi,
    /** The nodes whose /metrics/detailed has the counters (null: the management API only). */
    private readonly nodes: BrokerNodes | null = null,
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
    this.source = new Gauge({
      name: 'acktrail_rabbitmq_counters_source',
      help: "Where the per-queue counters (published, delivered, acked, redelivered) and so the queue status come from: 1 for the source of the last refresh (detailed: the broker's /metrics/detailed; management: the management API's statistics; none: neither has them, every work queue's status is unknown), 0 for the others.",
      labelNames: ['source'],
      registers: [this.registry],
    });
  }

  /** Said in /status while no source gives counters. */
  partialFailure(): string | null {
    return this.lastSource === 'none' ? `queue status unknown: ${UNKNOWN_RULE}` : null;
  }

  /** Every node's counters, or null when no node has the families (or none answered). */
  private async detailedCounters(signal: AbortSignal): Promise<Map<string, QueueCounters> | null> {
    if (!this.nodes || this.config.rabbitmq.source === 'management') return null;
    if (Date.now() < this.noFamiliesUntil) return null;
    const vhosts = this.config.rabbitmq.vhosts
      .map((v) => `&vhost=${encodeURIComponent(v)}`)
      .join('');
    const targets = (await this.nodes.current(signal)).filter((t) => t.running && t.url);
    const answers = await Promise.allSettled(
      targets.map((t) =>
        getText(t.url!, COUNTERS_PATH + vhosts, signal).then((text) =>
          parseCounters(text, t.name, t.url!),
        ),
      ),
    );
    const maps = answers.flatMap((a) => (a.status === 'fulfilled' && a.value ? [a.value] : []));
    // Every node answered without the families: an older broker. Ask again in 10 minutes (an
    // upgrade), not at every refresh (its answer is every queue's depth, read for nothing).
    if (!maps.length && answers.length && answers.every((a) => a.status === 'fulfilled'))
      this.noFamiliesUntil = Date.now() + 600_000;
    return maps.length ? mergeCounters(maps) : null;
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
    const [queues, bindings, exchanges, overview, detailed] = await Promise.all([
      get<StatsQueue>(per('/api/queues', columns)),
      get<BindingInfo>(per('/api/bindings', bindingColumns)),
      get<{ vhost: string; name: string; type: string }>(
        per('/api/exchanges', 'columns=vhost,name,type'),
      ),
      this.api.getJson<{ rabbitmq_version?: string }>(
        '/api/overview?columns=rabbitmq_version',
        signal,
      ),
      this.detailedCounters(signal).catch(() => null),
    ]);
    // With the management API's statistics off, no queue lists its counts.
    const managementStats = queues.some((q) => q.messages_ready !== undefined);
    const source: CounterSource = detailed ? 'detailed' : managementStats ? 'management' : 'none';
    const roles = inferRoles(queues, bindings, overrides);
    this.lastRunMs = performance.now() - started;
    return () => {
      this.cachedText = null;
      this.lastSource = source;
      for (const s of COUNTER_SOURCES) this.source.set({ source: s }, s === source ? 1 : 0);
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
      const unknown: Record<string, string>[] = [];
      for (const q of queues) {
        if (!this.inScope(q.vhost, q.name)) continue;
        const key = queueKey(q.vhost, q.name);
        const labels = { vhost: q.vhost, queue: q.name, role: roles.get(key) ?? 'work' };
        const counted = countsOf(q, source, detailed?.get(key));
        if (counted)
          for (const field of Object.keys(COUNTERS) as (keyof typeof COUNTERS)[]) {
            // The broker's cumulative value, mirrored: a reset followed by one increment.
            this.counters[field].inc(labels, counted[field]);
          }
        this.info.set({ ...labels, type: q.type ?? 'classic' }, 1);
        // A queue whose statistics the broker has not emitted yet lists no counts: not observed.
        if (labels.role === 'work' && counted)
          observations.set(key, {
            atMs: now,
            ready: counted.ready,
            consumers: counted.consumers,
            acked: counted.ack,
          });
        if (labels.role === 'work' && source === 'none') unknown.push(labels);
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
      for (const labels of unknown) {
        this.status.set({ ...labels, status: 'unknown' }, 1);
        statuses.set(queueKey(labels.vhost!, labels.queue!), {
          status: 'unknown',
          rule: UNKNOWN_RULE,
        });
      }
      this.catalog.updateStatuses(statuses);
    };
  }
}
