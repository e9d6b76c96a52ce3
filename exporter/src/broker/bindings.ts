// One exchange's bindings, routed as the broker routes them by the exchange's type: direct by the
// binding key equal to the routing key, fanout to every binding, topic by the binding key as a
// pattern (topic.ts, linear time). What routes.ts, reach.ts and dead-lettering.ts each ask of an
// exchange ("where does this key go?") is answered here once.
import { TopicTrie } from './topic.js';

/** The exchange types whose routing is a function of the routing key alone. */
export const KEYED_TYPES = new Set(['direct', 'fanout', 'topic']);

export class ExchangeBindings<T> {
  private readonly exact = new Map<string, T[]>();
  private readonly trie = new TopicTrie<T>();
  private readonly every: T[] = [];

  constructor(readonly type: 'direct' | 'fanout' | 'topic') {}

  /** The exchange's bindings, for a keyed type; null for any other (headers, a plugin's). */
  static of<T>(type: string | undefined): ExchangeBindings<T> | null {
    return type === 'direct' || type === 'fanout' || type === 'topic'
      ? new ExchangeBindings<T>(type)
      : null;
  }

  add(bindingKey: string, value: T): void {
    this.every.push(value);
    if (this.type === 'direct') {
      const list = this.exact.get(bindingKey);
      if (list) list.push(value);
      else this.exact.set(bindingKey, [value]);
    } else if (this.type === 'topic') this.trie.add(bindingKey, value);
  }

  /** The values of the bindings a publish with `routingKey` takes; null: any key (all of them). */
  route(routingKey: string | null): T[] {
    if (routingKey === null || this.type === 'fanout') return [...new Set(this.every)];
    if (this.type === 'direct') return [...new Set(this.exact.get(routingKey) ?? [])];
    return this.trie.match(routingKey);
  }

  /** Whether the exchange has any binding at all. */
  get empty(): boolean {
    return this.every.length === 0;
  }
}

const at = (vhost: string, name: string) => `${vhost}\u0000${name}`;

/** A binding as the management API lists it (roles.ts BindingInfo). */
export interface BindingShape {
  vhost: string;
  source: string;
  destination: string;
  destination_type: string;
  routing_key?: string;
}

/** An exchange as the management API lists it (routes.ts ExchangeInfo). */
export interface ExchangeShape {
  vhost: string;
  name: string;
  type: string;
}

/**
 * The bindings to queues of every keyed exchange, by vhost + exchange name, each valued by the
 * queue's name. The default exchange is left out: it routes a key to the queue of that name.
 */
export function queueBindings(
  bindings: readonly BindingShape[],
  exchanges: readonly ExchangeShape[],
): Map<string, ExchangeBindings<string>> {
  const out = new Map<string, ExchangeBindings<string>>();
  for (const e of exchanges) {
    const routed = ExchangeBindings.of<string>(e.type);
    if (routed) out.set(at(e.vhost, e.name), routed);
  }
  for (const b of bindings)
    if (b.destination_type === 'queue' && b.source !== '')
      out.get(at(b.vhost, b.source))?.add(b.routing_key ?? '', b.destination);
  return out;
}
