// Works out each queue's role (work, retry, dead_letter) from the broker's own description:
// 1. a configured override (first match wins);
// 2. a queue that dead-letters after a TTL (x-message-ttl) is a retry queue;
// 3. dead-letter relations (the queue's dead-letter exchange routing its dead-letter key): a queue
//    whose dead-letter targets dead-letter onward (back into a processing queue) is a retry queue;
//    a target that does not dead-letter is a dead-letter queue; a queue whose targets are
//    dead-letter queues is a work queue;
//    MassTransit's <queue>_error and <queue>_skipped, beside their queue, are dead-letter queues;
// 4. its name (dlq, dead-letter, parking-lot / retry, delay, wait);
// 5. otherwise work.

import { linearRegex } from '../linear-regex.js';
import { Slices } from '../runtime/slices.js';
import { queueBindings, type ExchangeShape } from './bindings.js';
import { FAULT_QUEUE } from './queue.js';

export type Role = 'work' | 'retry' | 'dead_letter';

export interface QueueInfo {
  vhost: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface BindingInfo {
  vhost: string;
  source: string;
  destination: string;
  destination_type: string;
  /** The binding key (read for the routes that feed a queue; roles do not need it). */
  routing_key?: string;
}

export interface RoleOverride {
  match: string;
  vhost?: string | undefined;
  role: Role;
}

const DEAD_LETTER_NAME = /(^|[._-])(dlq|dead[._-]?letters?|parking[._-]?lot|errors?)($|[._-])/i;
const RETRY_NAME = /(^|[._-])(retry|retries|delay(ed)?|wait)($|[._-]|\d)/i;

export function roleFromName(name: string): Role {
  if (DEAD_LETTER_NAME.test(name)) return 'dead_letter';
  if (RETRY_NAME.test(name)) return 'retry';
  return 'work';
}

const key = (vhost: string, name: string) => `${vhost}\u0000${name}`;

/** Where one queue's dead letters go: the queues reached, and how many of them dead-letter on. */
interface Route {
  all: Set<QueueInfo>;
  onward: number;
}

/**
 * The roles of the queues, from their arguments and the bindings. A dead-letter route is the
 * exchange's routing of the queue's dead-letter key (bindings.ts; any key where the queue names
 * none, every bound queue for an exchange of a type that routes by more than the key). Each route
 * is worked out once for all the queues that share it, and the work pauses for the event loop.
 */
export async function inferRoles(
  queues: readonly QueueInfo[],
  bindings: readonly BindingInfo[],
  exchanges: readonly ExchangeShape[],
  overrides: readonly RoleOverride[] = [],
  slices: Slices = new Slices(),
): Promise<Map<string, Role>> {
  const byKey = new Map(queues.map((q) => [key(q.vhost, q.name), q]));
  const routed = queueBindings(bindings, exchanges);
  const boundTo = new Map<string, Set<string>>(); // vhost+exchange -> queue names
  for (const b of bindings) {
    if (b.destination_type !== 'queue') continue;
    const k = key(b.vhost, b.source);
    const set = boundTo.get(k);
    if (set) set.add(b.destination);
    else boundTo.set(k, new Set([b.destination]));
  }
  const dlx = (q: QueueInfo) => q.arguments['x-dead-letter-exchange'];
  const byRoute = new Map<string, Route>();
  const routeOf = (q: QueueInfo): Route | null => {
    const exchange = dlx(q);
    if (typeof exchange !== 'string') return null;
    const rk = q.arguments['x-dead-letter-routing-key'];
    const named = typeof rk === 'string' ? rk : null;
    const k = `${key(q.vhost, exchange)}\u0000${named ?? '\u0001'}`;
    let route = byRoute.get(k);
    if (!route) {
      const at = key(q.vhost, exchange);
      const names =
        exchange === ''
          ? named === null
            ? []
            : [named]
          : (routed.get(at)?.route(named) ?? [...(boundTo.get(at) ?? [])]);
      const all = new Set(names.flatMap((n) => byKey.get(key(q.vhost, n)) ?? []));
      route = { all, onward: [...all].filter((t) => typeof dlx(t) === 'string').length };
      byRoute.set(k, route);
    }
    return route;
  };

  const routes = new Map<QueueInfo, Route | null>();
  for (const q of queues) {
    if (slices.due()) await slices.pause();
    routes.set(q, routeOf(q));
  }
  // How many other queues dead-letter into each queue (a queue is not its own target).
  const users = new Map<Route, number>();
  for (const route of routes.values()) if (route) users.set(route, (users.get(route) ?? 0) + 1);
  const targetedBy = new Map<QueueInfo, number>();
  for (const [route, n] of users)
    for (const t of route.all) targetedBy.set(t, (targetedBy.get(t) ?? 0) + n);
  for (const [q, route] of routes) if (route?.all.has(q)) targetedBy.set(q, targetedBy.get(q)! - 1);

  const compiled = overrides.map((o) => ({ ...o, re: linearRegex(o.match) }));
  const roles = new Map<string, Role>();
  for (const q of queues) {
    if (slices.due()) await slices.pause();
    const override = compiled.find(
      (o) => (o.vhost === undefined || o.vhost === q.vhost) && o.re.test(q.name),
    );
    const route = routes.get(q) ?? null;
    const self = route?.all.has(q) ?? false;
    const targets = (route?.all.size ?? 0) - (self ? 1 : 0);
    const onward = (route?.onward ?? 0) - (self && typeof dlx(q) === 'string' ? 1 : 0);
    let role: Role;
    const faultOf = FAULT_QUEUE.exec(q.name)?.[1];
    if (override) role = override.role;
    // MassTransit's <queue>_error and <queue>_skipped: where it moves its consumer's faults.
    else if (faultOf !== undefined && byKey.has(key(q.vhost, faultOf))) role = 'dead_letter';
    else if (typeof dlx(q) === 'string' && q.arguments['x-message-ttl'] !== undefined)
      role = 'retry';
    else if (targets > 0) role = onward > 0 ? 'retry' : 'work';
    else if ((targetedBy.get(q) ?? 0) > 0 && typeof dlx(q) !== 'string') role = 'dead_letter';
    else role = roleFromName(q.name);
    roles.set(key(q.vhost, q.name), role);
  }
  return roles;
}
