// Which broker nodes to read. RabbitMQ's Prometheus metrics are node-local: each node reports the
// queues it leads, so a cluster is read node by node. The nodes are the configured list, or
// discovered from the management API: /api/nodes names them and says which run, /api/overview's
// listeners give each running node's rabbitmq_prometheus and management ports. RabbitMQ 4 as the
// official image ships it (management_agent.disable_metrics_collector) lists no listeners: each
// node is then looked for at its own host (the part of its name after `@`) on the configured
// prometheusUrl's port, the layout of the image and the Kubernetes operator; an endpoint that
// answers as another node is reported (rabbitmq.ts), never read as that node. A single node is
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
  nodes: 'discover' | { url: string; name?: string | undefined; management?: string | undefined }[];
  prometheusUrl: string;
}

const WILDCARD = new Set(['::', '0.0.0.0', '']);

/** `scheme://host:port` with a node's own host name (rabbit@host) and `like`'s scheme and port. */
export function sameLayoutUrl(node: string, like: string): string {
  const url = new URL(like);
  const host = node.split('@')[1] ?? url.hostname;
  return `${url.protocol}//${host.includes(':') ? `[${host}]` : host}${url.port ? `:${url.port}` : ''}`;
}

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
    if (config.nodes === 'discover')
      this.targets = [{ name: null, url: config.prometheusUrl, running: true }];
    else {
      this.targets = config.nodes.map((n) => ({ name: n.name ?? null, url: n.url, running: true }));
      api.setNodes(config.nodes.flatMap((n) => (n.management ? [n.management] : [])));
    }
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
      // a single node has no other. Without listeners, each at its host on the configured port.
      this.api.setNodes(
        nodes.length <= 1
          ? []
          : listeners.length
            ? listeners
                .filter((l) => l.protocol === 'http' || l.protocol === 'https')
                .map((l) => listenerUrl(l, `${l.protocol}:`))
            : nodes.map((n) => sameLayoutUrl(n.name, this.api.configured)),
      );
      this.targets =
        nodes.length <= 1
          ? [{ name: nodes[0]?.name ?? null, url: this.config.prometheusUrl, running: true }]
          : nodes
              .map((n) => ({
                name: n.name,
                url:
                  this.lastUrl.get(n.name) ??
                  (listeners.length ? null : sameLayoutUrl(n.name, this.config.prometheusUrl)),
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
