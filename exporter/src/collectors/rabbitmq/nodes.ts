// Which broker nodes to read. RabbitMQ's Prometheus metrics are node-local: each node reports the
// queues it leads, so a cluster is read node by node. The nodes are the configured list, or
// discovered from the management API: /api/nodes names them and says which run, /api/overview's
// listeners give each running node's rabbitmq_prometheus and management ports. A single node is
// read at the configured prometheusUrl, as before there were clusters.
import type { ManagementApi } from './http.js';

export interface NodeTarget {
  /** The node's name (rabbit@host); null until a configured endpoint reports it. */
  name: string | null;
  /** Its rabbitmq_prometheus endpoint; null when it was never seen running. */
  url: string | null;
  /** false: the management API says the node is not running; it is reported down unread. */
  running: boolean;
}

interface Listener {
  node: string;
  protocol: string;
  ip_address: string;
  port: number;
}

export interface NodesConfig {
  nodes: 'discover' | { url: string; name?: string | undefined }[];
  prometheusUrl: string;
}

const WILDCARD = new Set(['::', '0.0.0.0', '']);

/** `http://host:port` of a listener; a wildcard address means the node's own host name. */
export function listenerUrl(l: Listener, scheme: string): string {
  const host = WILDCARD.has(l.ip_address) ? (l.node.split('@')[1] ?? 'localhost') : l.ip_address;
  return `${scheme}//${host.includes(':') ? `[${host}]` : host}:${l.port}`;
}

export class BrokerNodes {
  private targets: NodeTarget[];
  private refreshedAt = 0;
  private refreshing: Promise<void> | null = null;
  /** The last endpoint each node was seen at: a node that stops keeps its URL. */
  private readonly lastUrl = new Map<string, string>();

  constructor(
    private readonly config: NodesConfig,
    private readonly api: ManagementApi,
    private readonly intervalMs: number,
  ) {
    this.targets =
      config.nodes === 'discover'
        ? [{ name: null, url: config.prometheusUrl, running: true }]
        : config.nodes.map((n) => ({ name: n.name ?? null, url: n.url, running: true }));
  }

  /** More than one node: queues can move between them. */
  get clustered(): boolean {
    return this.targets.length > 1;
  }

  /**
   * The nodes to read now. Discovery runs at most every interval; the first run is waited for
   * (bounded by `signal`), later ones run in the background. A failed discovery keeps what was
   * known: the management API may be down while the nodes' own endpoints answer.
   */
  async current(signal: AbortSignal): Promise<NodeTarget[]> {
    if (this.config.nodes !== 'discover') return this.targets;
    if (Date.now() - this.refreshedAt >= this.intervalMs) {
      this.refreshing ??= this.discover(signal).finally(() => {
        this.refreshing = null;
      });
      if (this.refreshedAt === 0) await this.refreshing;
    }
    return this.targets;
  }

  private async discover(signal: AbortSignal): Promise<void> {
    try {
      const [nodes, overview] = await Promise.all([
        this.api.getJson<{ name: string; running?: boolean }[]>(
          '/api/nodes?columns=name,running',
          signal,
        ),
        this.api.getJson<{ listeners?: Listener[] }>('/api/overview?columns=listeners', signal),
      ]);
      const scheme = new URL(this.config.prometheusUrl).protocol;
      const listeners = overview.listeners ?? [];
      for (const l of listeners)
        if (/^https?\/prometheus$/.test(l.protocol))
          this.lastUrl.set(
            l.node,
            listenerUrl(l, l.protocol.startsWith('https') ? 'https:' : scheme),
          );
      // Another node's management API stands in for the configured one when that one is down;
      // a single node has no other.
      this.api.setNodes(
        nodes.length <= 1
          ? []
          : listeners
              .filter((l) => l.protocol === 'http' || l.protocol === 'https')
              .map((l) => listenerUrl(l, `${l.protocol}:`)),
      );
      this.targets =
        nodes.length <= 1
          ? [{ name: nodes[0]?.name ?? null, url: this.config.prometheusUrl, running: true }]
          : nodes
              .map((n) => ({
                name: n.name,
                url: this.lastUrl.get(n.name) ?? null,
                running: n.running !== false,
              }))
              .sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      // Kept as known; the stats collector reports the management API's failure.
    } finally {
      this.refreshedAt = Date.now();
    }
  }
}
