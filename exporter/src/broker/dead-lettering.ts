// Which queue dead-letters into which, from the broker's own description (each queue's
// dead-letter exchange and routing key, as argument or policy, and the bindings): what
// allDeadLetterQueues parks, and what a replay target read from x-death is checked against.
import type { Routes } from './routes.js';

export interface DeadLetterFacts {
  vhost: string;
  name: string;
  deadLetterExchange: string | null;
  deadLetterRoutingKey: string | null;
}

const key = (vhost: string, name: string) => `${vhost}\u0000${name}`;

/** Whether a publish to `exchange` with `routingKey` reaches a queue with these routes. */
export function routesReach(routes: Routes | undefined, exchange: string, routingKey: string) {
  if (!routes) return false;
  return (
    routes.exact.some((r) => r.exchange === exchange && r.key === routingKey) ||
    routes.any.includes(exchange) ||
    routes.pattern.some(
      (r) => r.exchange === exchange && new RegExp(r.regex).test(`.${routingKey}`),
    )
  );
}

/** Whether any publish to `exchange` (with the given key, where one is fixed) reaches the queue. */
function exchangeReaches(routes: Routes | undefined, exchange: string, routingKey: string | null) {
  if (!routes) return false;
  if (routingKey !== null) return routesReach(routes, exchange, routingKey);
  return (
    routes.any.includes(exchange) ||
    routes.exact.some((r) => r.exchange === exchange) ||
    routes.pattern.some((r) => r.exchange === exchange)
  );
}

/**
 * Per queue (vhost + name key), the queues whose dead-lettering reaches it. A queue that
 * dead-letters to the default exchange without a routing key of its own sends each message by
 * the key it was published with: no target can be named, so none is.
 */
export function deadLetterSources<F extends DeadLetterFacts>(
  queues: readonly F[],
  routes: ReadonlyMap<string, Routes>,
  /** Which queues count as sources (all by default); every queue may be a target. */
  counts: (q: F) => boolean = () => true,
): Map<string, string[]> {
  const sources = new Map<string, string[]>();
  const add = (target: string, source: DeadLetterFacts) => {
    sources.set(target, [...(sources.get(target) ?? []), source.name]);
  };
  for (const q of queues) {
    const dlx = q.deadLetterExchange;
    if (dlx === null || !counts(q)) continue;
    for (const t of queues) {
      if (t === q || t.vhost !== q.vhost) continue;
      const reached =
        dlx === ''
          ? q.deadLetterRoutingKey === t.name
          : exchangeReaches(routes.get(key(t.vhost, t.name)), dlx, q.deadLetterRoutingKey);
      if (reached) add(key(t.vhost, t.name), q);
    }
  }
  return sources;
}
