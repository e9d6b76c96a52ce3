// RabbitMQ per-queue message counters (published, delivered, acked, redelivered). The counters
// come from the broker's own /metrics/detailed where it has them (3.13, 4.x: source/counters.ts),
// and from the management API's message_stats where it must (3.10 to 3.12): those are in the
// answer the topology's refresh read (broker/refresh.ts), so one /api/queues read serves both,
// and this collector turns each new answer into series once. RabbitMQ 4 as the official image
// ships it has no statistics in the management API; with neither, the queue status is `unknown`,
// said by acktrail_rabbitmq_counters_source{source="none"}, /status and an alert, never silently
// absent. Its data age is acktrail_collector_data_age_seconds{collector="rabbitmq_stats"}; its
// 40,000 series at 10,000 queues change only with an answer, so they are written once per answer
// and format (exposition/families.ts), not kept in prom-client.
// Each answer is also one observation of every work queue (ready, consumers, acks) for its
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
import type { TopologyRefresh } from '../../broker/refresh.js';
import { scopeFilter } from '../../broker/scope.js';
import { queueKey } from './source/detailed.js';
import { getText } from './source/http.js';
import {
  COUNTERS_PATH,
  mergeCounters,
  parseCounters,
  type QueueCounters,
} from './source/counters.js';
import type { BrokerNodes } from './source/nodes.js';
import { countsOf, type CounterSource } from './source/stats-queue.js';
import type { QueueStatuses } from './queue-status.js';
import { COUNTER_SOURCES, family } from '../../metrics/catalogue.js';

const COUNTERS = {
  publish: family('acktrail_queue_messages_published_total'),
  deliver_get: family('acktrail_queue_messages_delivered_total'),
  ack: family('acktrail_queue_messages_acked_total'),
  redeliver: family('acktrail_queue_messages_redelivered_total'),
} as const satisfies Record<string, FamilySpec>;

const CAPACITY: FamilySpec = family('acktrail_queue_consumer_capacity_ratio');
const IDENTITY: FamilySpec = family('acktrail_rabbitmq_identity_info');
/** A cluster's name is the operator's text: bounded like a queue name (AMQP's 255). */
const CLUSTER_NAME_MAX = 255;

const INFO: FamilySpec = family('acktrail_queue_info');
const SOURCE: FamilySpec = family('acktrail_rabbitmq_counters_source');

const labelsOf = (r: QueueRow, extra: Record<string, string> = {}) =>
  labelsText({ vhost: r.vhost, queue: r.queue, role: r.role, ...extra });

/** A queue in scope as the last refresh saw it: what its series are written from. */
export interface QueueRow {
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
  /** Looked for a new answer this often: the topology's refresh sets the pace. */
  readonly minIntervalMs = 1000;
  /** The version of the answer the series were last written from, and when it was read. */
  private version = 0;
  private readAtMs: number | null = null;
  private rows: QueueRow[] = [];
  private readonly written = new CachedFamilies([
    ...(Object.keys(COUNTERS) as (keyof typeof COUNTERS)[]).map(
      (field) => [COUNTERS[field], () => this.counterSamples(field)] as const,
    ),
    [CAPACITY, () => this.capacitySamples()],
    [INFO, () => this.infoSamples()],
    [IDENTITY, () => [[labelsText({ rabbitmq_cluster: this.cluster }), 1]]],
    [SOURCE, () => this.sourceSamples()],
  ]);
  private lastSource: CounterSource | null = null;
  private cluster = 'unknown';
  /** A broker without the families (3.10 to 3.12) is asked again only after this (ms epoch). */
  private noFamiliesUntil = 0;
  private readonly inScope: (vhost: string, queue: string) => boolean;

  constructor(
    private readonly config: ValidatedConfig,
    private readonly topology: TopologyRefresh,
    /** Fed every work queue's counts at each refresh; its family is served with this one's. */
    private readonly statuses: QueueStatuses,
    /** The nodes whose /metrics/detailed has the counters (null: the management API only). */
    private readonly nodes: BrokerNodes | null = null,
    /**
     * Hears each new answer's counters, with when they were read: journeys keep those of the
     * queues whose consumers record no settle (journeys/settle-watch.ts).
     */
    private readonly counted: ((atMs: number, rows: readonly QueueRow[]) => void) | null = null,
  ) {
    // Listing every queue with statistics is the slow call: give it more time than a scrape.
    this.timeoutMs = Math.max(config.rabbitmq.timeoutSeconds * 1000, 30_000);
    this.inScope = scopeFilter(config);
  }

  /** The series are as old as the answer they were written from. */
  dataAt(): number | null {
    return this.readAtMs;
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

  exposition(format: ExpositionFormat): Piece[] {
    return [...this.written.pieces(format), ...this.statuses.exposition(format)];
  }

  private *counterSamples(field: keyof typeof COUNTERS): Iterable<SeriesLine> {
    for (const r of this.rows) if (r.counted) yield [labelsOf(r), r.counted[field]];
  }

  private *capacitySamples(): Iterable<SeriesLine> {
    for (const r of this.rows)
      if (r.counted?.capacity != null) yield [labelsOf(r), r.counted.capacity];
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
    await this.topology.untilLoaded(this.timeoutMs / 2, signal);
    // The refresh's last failure, thrown: this source is down with the broker's reason.
    const reading = this.topology.answer();
    if (!reading) throw new Error('the broker topology has not been read yet');
    if (reading.version === this.version) return () => undefined;
    const { answer, version, readAtMs } = reading;
    const detailed = await this.detailedCounters(signal).catch(() => null);
    // The detailed counters are as old as this read, the management API's as the answer.
    const countedAt = detailed ? Date.now() : readAtMs;
    // With the management API's statistics off, no queue lists its counts.
    const managementStats = answer.queues.some((q) => q.messages_ready !== undefined);
    const source: CounterSource = detailed ? 'detailed' : managementStats ? 'management' : 'none';
    const topology = this.topology.current;
    return () => {
      this.version = version;
      this.readAtMs = readAtMs;
      this.lastSource = source;
      if (answer.cluster) this.cluster = answer.cluster.slice(0, CLUSTER_NAME_MAX);
      const rows: QueueRow[] = [];
      for (const q of answer.queues) {
        if (!this.inScope(q.vhost, q.name)) continue;
        const key = queueKey(q.vhost, q.name);
        // The broker's cumulative values, mirrored. A queue whose statistics the broker has not
        // emitted yet lists no counts: not observed.
        const counted = countsOf(q, source, detailed?.get(key));
        const role = topology.role(q.vhost, q.name, key);
        rows.push({ vhost: q.vhost, queue: q.name, role, type: q.type ?? 'classic', counted });
      }
      this.rows = rows;
      this.written.invalidate();
      this.counted?.(countedAt, rows);
      this.statuses.refresh(
        rows.filter((r) => r.role === 'work'),
        source === 'none' ? UNKNOWN_RULE : null,
        Date.now(),
        managementStats,
      );
    };
  }
}
