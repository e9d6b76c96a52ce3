// RabbitMQ queue depths and consumers, every scrape. Source (chosen by measurement, see
// docs/benchmarks-history.md): the broker's /metrics/detailed endpoint, falling back to the management
// API (asking only for the needed columns) when that endpoint does not answer or when configured.
// In a cluster every node is read, concurrently, for the queues it leads, and the answers merged:
// every queue once, with no node label, so a leader moving never starts a new series
// (source/merge.ts). A node that does not answer is acktrail_rabbitmq_node_up 0; the others'
// queues keep their values and the collector reports the partial failure.
import { Gauge, type Registry } from 'prom-client';
import type { ExpositionFormat } from '../../exposition/families.js';
import type { Piece } from '../../exposition/encoding.js';
import type { ValidatedConfig } from '../../config.js';
import { errorMessage } from '../../log.js';
import type { Collector } from '../runner/collector.js';
import type { QueueBoard } from './board.js';
import type { TopologyRefresh } from '../../broker/refresh.js';
import { scopeFilter } from '../../broker/scope.js';
import {
  DETAILED_PATH,
  checkIdentity,
  parseDetailed,
  queueKey,
  queueSeries,
  type QueueDepth,
  type QueueName,
} from './source/detailed.js';
import type { SeriesReader } from '../../exposition/text.js';
import { getText, type ManagementApi } from './source/http.js';
import { mergeNodes, type NodeAnswer } from './source/merge.js';
import type { BrokerNodes, NodeTarget } from './source/nodes.js';
import { QueueFamilies } from './queue-families.js';
import type { QueueStatuses } from './queue-status.js';
import { gauge } from '../../metrics/catalogue.js';

interface ManagementQueue {
  vhost: string;
  name: string;
  messages_ready?: number;
  messages_unacknowledged?: number;
  consumers?: number;
}

/** A node's read gets this share of the collector's time, so that one stalled node is one
 *  node down, not a failed scrape. */
const NODE_TIME_SHARE = 0.8;

const hostPort = (url: string) => new URL(url).host;

export class RabbitmqQueuesCollector implements Collector {
  readonly name = 'rabbitmq';
  readonly timeoutMs: number;
  private readonly nodeUp: Gauge;
  private readonly inScope: (vhost: string, queue: string) => boolean;
  private readonly families: QueueFamilies;
  private nodeNames = new Set<string>();
  /** The names configured endpoints reported, by URL. */
  private readonly identities = new Map<string, string>();
  private partial: string | null = null;
  /** Each endpoint's series, read from its last answer: the next parse finds them by text. */
  private readonly series = new Map<string, SeriesReader<QueueName>>();

  constructor(
    private readonly config: ValidatedConfig,
    private readonly topology: TopologyRefresh,
    board: QueueBoard,
    private readonly nodes: BrokerNodes,
    private readonly api: ManagementApi,
    /** Fed each answer's depths: STOP shows at the next scrape. */
    private readonly statuses: QueueStatuses,
    registry: Registry,
  ) {
    this.timeoutMs = config.rabbitmq.timeoutSeconds * 1000;
    this.inScope = scopeFilter(config);
    this.families = new QueueFamilies(board);
    this.nodeUp = new Gauge({ ...gauge('acktrail_rabbitmq_node_up'), registers: [registry] });
  }

  /** Which nodes did not answer the last read, with why; null when all did. */
  partialFailure(): string | null {
    return this.partial;
  }

  async collect(signal: AbortSignal): Promise<() => void> {
    // Roles come from the topology's refresh; give its first run a moment so that the first
    // scrape already has the right role labels, without ever waiting on it for long.
    await this.topology.untilLoaded(this.timeoutMs / 2, signal);
    const { depths, nodes, partial } = await this.read(signal);
    return () => {
      this.partial = partial;
      this.applyNodes(nodes);
      // In a cluster, a queue no node reported (its leader moving, its node down) keeps its last
      // values for holdSeconds; then, or at once on a single node, its series go.
      const holdMs = this.nodes.clustered ? this.config.rabbitmq.holdSeconds * 1000 : 0;
      this.families.apply(depths, this.inScope, holdMs);
      this.statuses.observe(depths, Date.now());
    };
  }

  clear(): void {
    this.families.clear();
    for (const node of this.nodeNames) this.nodeUp.set({ node }, 0);
  }

  /** The queue families of the last answer, written once per answer and format. */
  exposition(format: ExpositionFormat): Piece[] {
    return this.families.exposition(format);
  }

  private applyNodes(nodes: Map<string, boolean>): void {
    for (const [node, up] of nodes) this.nodeUp.set({ node }, up ? 1 : 0);
    for (const node of this.nodeNames) if (!nodes.has(node)) this.nodeUp.remove({ node });
    this.nodeNames = new Set(nodes.keys());
  }

  private async read(signal: AbortSignal): Promise<Reading> {
    const { source } = this.config.rabbitmq;
    if (source !== 'management') {
      try {
        return await this.fromDetailed(signal);
      } catch (err) {
        if (source === 'prometheus' || signal.aborted) throw err;
      }
    }
    return this.fromManagement(signal);
  }

  /** Every node's /metrics/detailed at once; throws only when no node answered. */
  private async fromDetailed(signal: AbortSignal): Promise<Reading> {
    const vhosts = this.config.rabbitmq.vhosts
      .map((v) => `&vhost=${encodeURIComponent(v)}`)
      .join('');
    const targets = await this.nodes.current(signal);
    for (const url of this.series.keys())
      if (!targets.some((t) => t.url === url)) this.series.delete(url);
    const nodeMs = Math.round(this.timeoutMs * NODE_TIME_SHARE);
    const results = await Promise.allSettled(
      targets.map((t) => this.readNode(t, DETAILED_PATH + vhosts, nodeMs, signal)),
    );
    const answers: NodeAnswer[] = [];
    const nodes = new Map<string, boolean>();
    const failures: string[] = [];
    results.forEach((r, i) => {
      const target = targets[i]!;
      if (r.status === 'fulfilled') {
        answers.push(r.value);
        nodes.set(r.value.name, true);
      } else {
        const name = this.nameOf(target);
        nodes.set(name, false);
        failures.push(`${name}: ${errorMessage(r.reason)}`);
      }
    });
    if (answers.length === 0) throw new Error(failures.join('; '));
    const merged = mergeNodes(answers, (vhost, queue) =>
      this.topology.current.leader(vhost, queue),
    );
    const partial = failures.length
      ? `${failures.length} of ${targets.length} nodes did not answer: ${failures.join('; ')}`
      : null;
    return { depths: merged, nodes, partial };
  }

  private async readNode(
    target: NodeTarget,
    path: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<NodeAnswer> {
    if (!target.running || target.url === null)
      throw new Error(target.url === null ? 'no known endpoint' : 'not running (management API)');
    const url = target.url;
    const own = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    let text: string;
    try {
      text = await getText(url, path, own);
    } catch (err) {
      if (own.aborted && !signal.aborted)
        throw new Error(`timed out after ${timeoutMs} ms`, { cause: err });
      throw err;
    }
    let series = this.series.get(url);
    if (!series) this.series.set(url, (series = queueSeries()));
    const parsed = parseDetailed(text, series);
    checkIdentity(target.name, parsed.node, url);
    if (parsed.node) this.identities.set(url, parsed.node);
    return { ...parsed, name: this.nameOf(target) };
  }

  /** A node's label: its name, as configured, discovered or reported; else its endpoint. */
  private nameOf(t: NodeTarget): string {
    return t.name ?? (t.url ? (this.identities.get(t.url) ?? hostPort(t.url)) : 'unknown');
  }

  private async fromManagement(signal: AbortSignal): Promise<Reading> {
    const columns = 'columns=vhost,name,messages_ready,messages_unacknowledged,consumers';
    const paths = this.config.rabbitmq.vhosts.length
      ? this.config.rabbitmq.vhosts.map((v) => `/api/queues/${encodeURIComponent(v)}?${columns}`)
      : [`/api/queues?${columns}`];
    const [lists, nodeList] = await Promise.all([
      Promise.all(paths.map((p) => this.api.getJson<ManagementQueue[]>(p, signal))),
      this.api.getJson<{ name: string; running?: boolean }[]>(
        '/api/nodes?columns=name,running',
        signal,
      ),
    ]);
    const nodes = new Map(nodeList.map((n) => [n.name, n.running !== false]));
    const down = [...nodes].filter(([, up]) => !up).map(([n]) => n);
    // A queue whose statistics have not been emitted yet (a quorum queue just declared, or whose
    // leader just moved) lists no counts: unknown, not zero, so it is left to the hold above.
    const depths = new Map<string, QueueDepth>();
    for (const q of lists.flat())
      if (q.messages_ready !== undefined)
        depths.set(queueKey(q.vhost, q.name), {
          vhost: q.vhost,
          queue: q.name,
          ready: q.messages_ready,
          unacked: q.messages_unacknowledged ?? 0,
          consumers: q.consumers ?? 0,
        });
    const partial = down.length
      ? `${down.length} of ${nodes.size} nodes not running: ${down.join(', ')}`
      : null;
    return { depths, nodes, partial };
  }
}

interface Reading {
  /** By queue key. */
  depths: Map<string, QueueDepth>;
  /** Node name -> whether it answered (or, from the management API, runs). */
  nodes: Map<string, boolean>;
  partial: string | null;
}
