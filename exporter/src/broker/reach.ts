// Where one publish goes, by the broker's bindings, as RabbitMQ routes it: through the exchange
// named, every exchange-to-exchange binding that matches the key (each hop routes by the same key,
// with its own exchange's type), and an exchange's alternate exchange when its bindings match
// nothing. What a replay's plan promises ("reaches that queue and no other") rests on it, so a hop
// whose routing depends on what this cannot see (a headers exchange, a plugin's exchange type, an
// exchange the broker did not list) makes the reach unknown, with the reason, never a guess.
import type { BindingInfo } from './roles.js';
import type { ExchangeInfo } from './routes.js';
import { ExchangeBindings, KEYED_TYPES } from './bindings.js';

/** The queues a publish reaches (no queue: unroutable), or why that cannot be computed. */
export type Reach = { queues: string[] } | { unknown: string };

interface Edge {
  destination: string;
  toQueue: boolean;
}

const at = (vhost: string, name: string) => `${vhost}\u0000${name}`;

export class RoutingGraph {
  private readonly edges = new Map<string, ExchangeBindings<Edge>>();
  private readonly exchanges = new Map<string, ExchangeInfo>();
  private readonly queues = new Set<string>();

  constructor(bindings: readonly BindingInfo[], exchanges: readonly ExchangeInfo[]) {
    for (const e of exchanges) {
      this.exchanges.set(at(e.vhost, e.name), e);
      const routed = ExchangeBindings.of<Edge>(e.type);
      if (routed) this.edges.set(at(e.vhost, e.name), routed);
    }
    for (const b of bindings) {
      const toQueue = b.destination_type === 'queue';
      if (toQueue) this.queues.add(at(b.vhost, b.destination));
      // The default exchange's bindings are implicit: it routes a key to the queue of that name.
      if (b.source === '') continue;
      this.edges
        .get(at(b.vhost, b.source))
        ?.add(b.routing_key ?? '', { destination: b.destination, toQueue });
    }
  }

  /** The queues of `vhost` a publish to `exchange` ('' the default) with `routingKey` reaches. */
  reach(vhost: string, exchange: string, routingKey: string): Reach {
    if (exchange === '')
      return { queues: this.queues.has(at(vhost, routingKey)) ? [routingKey] : [] };
    const queues = new Set<string>();
    const seen = new Set<string>();
    const pending = [exchange];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (seen.has(name)) continue;
      seen.add(name);
      const info = this.exchanges.get(at(vhost, name));
      if (!info) return { unknown: `the broker lists no exchange "${name}" in vhost "${vhost}"` };
      if (!KEYED_TYPES.has(info.type))
        return {
          unknown: `exchange "${name}" is of type "${info.type}", which routes by more than the routing key`,
        };
      const matched = this.edges.get(at(vhost, name))?.route(routingKey) ?? [];
      for (const e of matched) {
        if (e.toQueue) queues.add(e.destination);
        else pending.push(e.destination);
      }
      if (matched.length > 0) continue;
      const alternate = info.arguments?.['alternate-exchange'];
      if (typeof alternate === 'string') pending.push(alternate);
      else if (info.policy)
        return {
          unknown: `exchange "${name}" matches no binding for this key, and its policy "${info.policy}" may name an alternate exchange`,
        };
    }
    return { queues: [...queues].sort() };
  }
}
