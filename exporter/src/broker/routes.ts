// Which publishes reach a queue, from the broker's bindings: what the journey-derived head age
// (collectors/rabbitmq/heads.ts) matches publish steps against. The default exchange routes a key to
// the queue of that name; a direct exchange by equal binding key; a fanout exchange everything; a
// topic exchange by pattern (`*` one word, `#` zero or more: topic.ts, in linear time). Headers and plugin exchanges, and
// exchange-to-exchange bindings, route by what a publish step does not record: not matched. Where
// one publish goes, through every hop, is broker/reach.ts (what a replay's plan promises).
import type { BindingInfo } from './roles.js';
import { queueBindings, type ExchangeBindings } from './bindings.js';

export interface ExchangeInfo {
  vhost: string;
  name: string;
  type: string;
  /** Its declared arguments (`alternate-exchange`), where the broker was asked for them. */
  arguments?: Record<string, unknown>;
  /** The policy that applies to it, if any (a policy may name an alternate exchange). */
  policy?: string | null;
}

/** The routes into one queue: publishes to `exchange` with a key that matches. */
export interface Routes {
  /** Exchange and routing key, exactly. */
  exact: { exchange: string; key: string }[];
  /** Every publish to these exchanges. */
  any: string[];
  /** A routing key matching the topic binding key `key` (topic.ts). */
  pattern: { exchange: string; key: string }[];
}

const at = (vhost: string, name: string) => `${vhost}\u0000${name}`;

/** Per queue (vhost + name key), the routes that reach it. */
export function routesByQueue(
  bindings: readonly BindingInfo[],
  exchanges: readonly ExchangeInfo[],
): Map<string, Routes> {
  const types = new Map(exchanges.map((e) => [at(e.vhost, e.name), e.type]));
  const routes = new Map<string, Routes>();
  for (const b of bindings) {
    if (b.destination_type !== 'queue') continue;
    const q = at(b.vhost, b.destination);
    let r = routes.get(q);
    if (!r) {
      // The default exchange binds every queue by its name.
      r = { exact: [{ exchange: '', key: b.destination }], any: [], pattern: [] };
      routes.set(q, r);
    }
    if (b.source === '') continue;
    const bindingKey = b.routing_key ?? '';
    switch (types.get(at(b.vhost, b.source))) {
      case 'direct':
        r.exact.push({ exchange: b.source, key: bindingKey });
        break;
      case 'fanout':
        r.any.push(b.source);
        break;
      case 'topic':
        r.pattern.push({ exchange: b.source, key: bindingKey });
        break;
      default:
    }
  }
  return routes;
}

/**
 * Which queues a publish reaches, by exchange: the receiver names the queue of a delivery whose
 * span names only the exchange and routing key (.NET's, Python's) when the bindings route it to
 * one queue. Queues are named without their vhost, as spans name them; an exchange's name in
 * every vhost counts.
 */
export class ExchangeIndex {
  private readonly byExchange = new Map<string, ExchangeBindings<string>[]>();
  private readonly queues = new Set<string>();

  constructor(bindings: readonly BindingInfo[], exchanges: readonly ExchangeInfo[]) {
    for (const b of bindings) if (b.destination_type === 'queue') this.queues.add(b.destination);
    for (const [key, routed] of queueBindings(bindings, exchanges)) {
      if (routed.empty) continue;
      const name = key.slice(key.indexOf('\u0000') + 1);
      this.byExchange.set(name, [...(this.byExchange.get(name) ?? []), routed]);
    }
  }

  /** Whether some queue (of any vhost) has this name. */
  isQueue(name: string): boolean {
    return this.queues.has(name);
  }

  /** Whether some binding has this exchange as its source. */
  isExchange(name: string): boolean {
    return this.byExchange.has(name);
  }

  /**
   * The queues a publish to `exchange` ('' the default) with `key` reaches; with `key` null (not
   * recorded), every queue bound to the exchange.
   */
  reached(exchange: string, key: string | null): string[] {
    if (exchange === '') return key !== null && this.queues.has(key) ? [key] : [];
    const out = new Set<string>();
    for (const e of this.byExchange.get(exchange) ?? []) for (const q of e.route(key)) out.add(q);
    return [...out];
  }
}
