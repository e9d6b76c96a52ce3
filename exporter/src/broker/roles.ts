// Works out each queue's role (work, retry, dead_letter) from the broker's own description:
// 1. a configured override (first match wins);
// 2. a queue that dead-letters after a TTL (x-message-ttl) is a retry queue;
// 3. dead-letter relations: a queue whose dead-letter targets dead-letter onward (back into a
//    processing queue) is a retry queue; a target that does not dead-letter is a dead-letter queue;
//    a queue whose targets are dead-letter queues is a work queue;
// 4. its name (dlq, dead-letter, parking-lot / retry, delay, wait);
// 5. otherwise work.

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

export function inferRoles(
  queues: readonly QueueInfo[],
  bindings: readonly BindingInfo[],
  overrides: readonly RoleOverride[] = [],
): Map<string, Role> {
  const byKey = new Map(queues.map((q) => [key(q.vhost, q.name), q]));
  const boundTo = new Map<string, string[]>(); // vhost+exchange -> queue names
  for (const b of bindings) {
    if (b.destination_type !== 'queue') continue;
    const k = key(b.vhost, b.source);
    const list = boundTo.get(k) ?? [];
    list.push(b.destination);
    boundTo.set(k, list);
  }
  const dlx = (q: QueueInfo) => q.arguments['x-dead-letter-exchange'];
  const targets = (q: QueueInfo): QueueInfo[] => {
    const exchange = dlx(q);
    if (typeof exchange !== 'string') return [];
    const names =
      exchange === ''
        ? [q.arguments['x-dead-letter-routing-key']].filter(
            (n): n is string => typeof n === 'string',
          )
        : (boundTo.get(key(q.vhost, exchange)) ?? []);
    return names.flatMap((n) => byKey.get(key(q.vhost, n)) ?? []).filter((t) => t !== q);
  };

  const compiled = overrides.map((o) => ({ ...o, re: new RegExp(o.match) }));
  const roles = new Map<string, Role>();
  const isTarget = new Set<QueueInfo>();
  for (const q of queues) for (const t of targets(q)) isTarget.add(t);

  for (const q of queues) {
    const override = compiled.find(
      (o) => (o.vhost === undefined || o.vhost === q.vhost) && o.re.test(q.name),
    );
    let role: Role;
    if (override) role = override.role;
    else if (typeof dlx(q) === 'string' && q.arguments['x-message-ttl'] !== undefined)
      role = 'retry';
    else {
      const ts = targets(q);
      if (ts.length > 0) role = ts.some((t) => typeof dlx(t) === 'string') ? 'retry' : 'work';
      else if (isTarget.has(q) && typeof dlx(q) !== 'string') role = 'dead_letter';
      else role = roleFromName(q.name);
    }
    roles.set(key(q.vhost, q.name), role);
  }
  return roles;
}
