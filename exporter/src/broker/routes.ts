// Which publishes reach a queue, from the broker's bindings: what the journey-derived head age
// (collectors/rabbitmq/heads.ts) matches publish steps against. The default exchange routes a key to
// the queue of that name; a direct exchange by equal binding key; a fanout exchange everything; a
// topic exchange by pattern (`*` one word, `#` zero or more). Headers and plugin exchanges, and
// exchange-to-exchange bindings, route by what a publish step does not record: not matched. Where
// one publish goes, through every hop, is broker/reach.ts (what a replay's plan promises).
import type { BindingInfo } from './roles.js';

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
  /** A routing key matching `regex` (PostgreSQL ARE), matched against '.' followed by the key. */
  pattern: { exchange: string; regex: string }[];
}

const SPECIAL = /[.^$|?*+()[\]{}\\]/g;

/**
 * A topic binding key as a regular expression over '.' + routing key: each word becomes `\.word`,
 * so that `#` (zero or more words) is `(\.[^.]*)*` with no special case at either end.
 */
export function topicRegex(bindingKey: string): string {
  const words = bindingKey
    .split('.')
    .map((w) =>
      w === '#' ? '(\\.[^.]*)*' : w === '*' ? '\\.[^.]*' : `\\.${w.replace(SPECIAL, '\\$&')}`,
    );
  return `^${words.join('')}$`;
}

const key = (vhost: string, name: string) => `${vhost}\u0000${name}`;

/** Per queue (vhost + name key), the routes that reach it. */
export function routesByQueue(
  bindings: readonly BindingInfo[],
  exchanges: readonly ExchangeInfo[],
): Map<string, Routes> {
  const types = new Map(exchanges.map((e) => [key(e.vhost, e.name), e.type]));
  const routes = new Map<string, Routes>();
  for (const b of bindings) {
    if (b.destination_type !== 'queue') continue;
    const q = key(b.vhost, b.destination);
    let r = routes.get(q);
    if (!r) {
      // The default exchange binds every queue by its name.
      r = { exact: [{ exchange: '', key: b.destination }], any: [], pattern: [] };
      routes.set(q, r);
    }
    if (b.source === '') continue;
    const bindingKey = b.routing_key ?? '';
    switch (types.get(key(b.vhost, b.source))) {
      case 'direct':
        r.exact.push({ exchange: b.source, key: bindingKey });
        break;
      case 'fanout':
        r.any.push(b.source);
        break;
      case 'topic':
        r.pattern.push({ exchange: b.source, regex: topicRegex(bindingKey) });
        break;
      default:
    }
  }
  return routes;
}

/**
 * Which queues a publish reaches, by exchange: the receiver names the queue of a delivery whose
 * span names only the exchange and routing key (.NET's, Python's) when the bindings route it to
 * one queue. Queues are named without their vhost, as spans name them.
 */
export class ExchangeIndex {
  private readonly byExchange = new Map<
    string,
    { queue: string; keys: Set<string>; any: boolean; patterns: RegExp[] }[]
  >();
  private readonly queues = new Set<string>();

  constructor(routes: ReadonlyMap<string, Routes>) {
    for (const [key, r] of routes) {
      const queue = key.slice(key.indexOf('\u0000') + 1);
      this.queues.add(queue);
      const entries = new Map<string, { keys: Set<string>; any: boolean; patterns: RegExp[] }>();
      const of = (exchange: string) => {
        let e = entries.get(exchange);
        if (!e) entries.set(exchange, (e = { keys: new Set(), any: false, patterns: [] }));
        return e;
      };
      for (const x of r.exact) if (x.exchange !== '') of(x.exchange).keys.add(x.key);
      for (const x of r.any) of(x).any = true;
      for (const x of r.pattern) of(x.exchange).patterns.push(new RegExp(x.regex));
      for (const [exchange, e] of entries) {
        const list = this.byExchange.get(exchange) ?? [];
        list.push({ queue, ...e });
        this.byExchange.set(exchange, list);
      }
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
    for (const e of this.byExchange.get(exchange) ?? [])
      if (key === null || e.any || e.keys.has(key) || e.patterns.some((p) => p.test(`.${key}`)))
        out.add(e.queue);
    return [...out];
  }
}
