// RabbitMQ per-queue message counters (published, delivered, acked, redelivered) and the queue
// arguments and bindings that roles are inferred from. The counters come from the broker's own
// /metrics/detailed where it has them (3.13, 4.x: source/counters.ts), and from the management
// API's message_stats where it must (3.10 to 3.12). RabbitMQ 4 as the official image ships it has
// no statistics in the management API; with neither, the queue status is `unknown`, said by
// acktrail_rabbitmq_counters_source{source="none"}, /status and an alert, never silently absent.
// Listing queues from the management API is expensive with many queues: this collector refreshes
// in the background, at most every statsIntervalSeconds and at most once per 100 times its last
// refresh took (so that it keeps the management API busy 1 % of the time at most), but at least
// every ten intervals (rabbitmq/refresh-interval.ts); its data age is
// acktrail_collector_data_age_seconds{collector="rabbitmq_stats"}. Its 40,000 series at 10,000
// queues change only when it runs, so they are written once per refresh and format
// (exposition/families.ts), not kept in prom-client.
// Each refresh is also one observation of every work queue (ready, consumers, acks) for its
// health status (rabbitmq/status.ts), and says each queue's type (acktrail_queue_info), and
// whether the management API lists statistics, which acks.ts reads one queue at a time.
import {
  CachedFamilies,
  labelsText,
  type ExpositionFormat,
  type FamilySpec,
  type SeriesLine,
} from '../../exposition/families.js';
import type { Piece } from '../../exposition/encoding.js';
import type { ValidatedConfig } from '../../config.js';
import type { Collector } from '../runner/collector.js';
import type { QueueCatalog } from '../../broker/catalog.js';
import type { ExchangeInfo } from '../../broker/routes.js';
import { scopeFilter } from '../../broker/scope.js';
import { queueKey } from './source/detailed.js';
import { getText, type ManagementApi } from './source/http.js';
import {
  COUNTERS_PATH,
  mergeCounters,
  parseCounters,
  type QueueCounters,
} from './source/counters.js';
import type { BrokerNodes } from './source/nodes.js';
import {
  COUNTER_SOURCES,
  countsOf,
  queueFacts,
  type CounterSource,
  type StatsQueue,
} from './source/stats-queue.js';
import { inferRoles, type BindingInfo } from '../../broker/roles.js';
import type { QueueStatuses } from './queue-status.js';
import { refreshIntervalMs } from './refresh-interval.js';

const COUNTERS = {
  publish: {
    name: 'acktrail_queue_messages_published_total',
    help: 'Messages published into the queue (broker statistics).',
    type: 'counter',
  },
  deliver_get: {
    name: 'acktrail_queue_messages_delivered_total',
    help: 'Messages delivered or fetched from the queue (broker statistics).',
    type: 'counter',
  },
  ack: {
    name: 'acktrail_queue_messages_acked_total',
    help: 'Deliveries acknowledged (broker statistics).',
    type: 'counter',
  },
  redeliver: {
    name: 'acktrail_queue_messages_redelivered_total',
    help: 'Deliveries with the redelivered flag (broker statistics).',
    type: 'counter',
  },
} as const satisfies Record<string, FamilySpec>;

const INFO: FamilySpec = {
  name: 'acktrail_queue_info',
  help: "Always 1: each queue in scope with its role and type (classic, quorum, stream), to join the broker's own series by role.",
  type: 'gauge',
};
const SOURCE: FamilySpec = {
  name: 'acktrail_rabbitmq_counters_source',
  help: "Where the per-queue counters (published, delivered, acked, redelivered) and so the queue status come from: 1 for the source of the last refresh (detailed: the broker's /metrics/detailed; management: the management API's statistics; none: neither has them, every work queue's status is unknown), 0 for the others.",
  type: 'gauge',
};

const labelsOf = (r: QueueRow, extra: Record<string, string> = {}) =>
  labelsText({ vhost: r.vhost, queue: r.queue, role: r.role, ...extra });

/** A queue in scope as the last refresh saw it: what its series are written from. */
interface QueueRow {
  vhost: string;
  queue: string;
  role: string;
  type: string;
  /** null: the source has no counts for it (yet). */
  counted: QueueCounters | null;
}

export const RABBITMQ_STATS = 'rabbitmq_stats';

const UNKNOWN_RULE =
  "no counters: the broker's /metrics/detailed has no queue_delivery_metrics and the management API no statistics (management_agent.disable_metrics_collector)";

export class RabbitmqStatsCollector implements Collector {
  readonly name = RABBITMQ_STATS;
  readonly timeoutMs: number;
  private readonly baseIntervalMs: number;
  private lastRunMs = 0;
  private rows: QueueRow[] = [];
  private readonly written = new CachedFamilies([
    ...(Object.keys(COUNTERS) as (keyof typeof COUNTERS)[]).map(
      (field) => [COUNTERS[field], () => this.counterSamples(field)] as const,
    ),
    [INFO, () => this.infoSamples()],
    [SOURCE, () => this.sourceSamples()],
  ]);
  private lastSource: CounterSource | null = null;
  /** A broker without the families (3.10 to 3.12) is asked again only after this (ms epoch). */
  private noFamiliesUntil = 0;
  private readonly inScope: (vhost: string, queue: string) => boolean;

  constructor(
    private readonly config: ValidatedConfig,
    private readonly catalog: QueueCatalog,
    private readonly api: ManagementApi,
    /** Fed every work queue's counts at each refresh; its family is served with this one's. */
    private readonly statuses: QueueStatuses,
    /** The nodes whose /metrics/detailed has the counters (null: the management API only). */
    private readonly nodes: BrokerNodes | null = null,
  ) {
    // Listing every queue with statistics is the slow call: give it more time than a scrape.
    this.timeoutMs = Math.max(config.rabbitmq.timeoutSeconds * 1000, 30_000);
    this.baseIntervalMs = config.rabbitmq.statsIntervalSeconds * 1000;
    this.inScope = scopeFilter(config.rabbitmq);
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
    return refreshIntervalMs(this.baseIntervalMs, this.lastRunMs);
  }

  exposition(format: ExpositionFormat): Piece[] {
    return [...this.written.pieces(format), ...this.statuses.exposition(format)];
  }

  private *counterSamples(field: keyof typeof COUNTERS): Iterable<SeriesLine> {
    for (const r of this.rows) if (r.counted) yield [labelsOf(r), r.counted[field]];
  }

  private *infoSamples(): Iterable<SeriesLine> {
    for (const r of this.rows) yield [labelsOf(r, { type: r.type }), 1];
  }

  private sourceSamples(): SeriesLine[] {
    const source = this.lastSource;
    if (source === null) return [];
    return COUNTER_SOURCES.map((s) => [labelsText({ source: s }), s === source ? 1 : 0]);
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
      get<ExchangeInfo>(per('/api/exchanges', 'columns=vhost,name,type,arguments,policy')),
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
      this.lastSource = source;
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
      const rows: QueueRow[] = [];
      for (const q of queues) {
        if (!this.inScope(q.vhost, q.name)) continue;
        const role = roles.get(queueKey(q.vhost, q.name)) ?? 'work';
        // The broker's cumulative values, mirrored. A queue whose statistics the broker has not
        // emitted yet lists no counts: not observed.
        const counted = countsOf(q, source, detailed?.get(queueKey(q.vhost, q.name)));
        rows.push({ vhost: q.vhost, queue: q.name, role, type: q.type ?? 'classic', counted });
      }
      this.rows = rows;
      this.written.invalidate();
      this.statuses.refresh(
        rows.filter((r) => r.role === 'work'),
        source === 'none' ? UNKNOWN_RULE : null,
        Date.now(),
        managementStats,
      );
    };
  }
}
