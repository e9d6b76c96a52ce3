// What the slow stats refresh learns about the queues: each queue's role and the timestamp of
// the message at its head (for the fast depth collector), and what the queue does with a message
// its consumer rejects (for journeys: dead-lettered or discarded). Shared by the two rabbitmq
// collectors and the journey API.
import type { ValidatedConfig } from '../../config.js';
import { queueKey } from './detailed.js';
import { roleFromName, type Role } from './roles.js';

/** What the broker does with a message this queue's consumer rejects or nacks without requeue. */
export interface QueueFacts {
  vhost: string;
  /** classic, quorum or stream, as the broker names it. */
  type: string;
  role: Role;
  /** Its dead-letter exchange (argument, or policy), or null: a rejected message is dropped. */
  deadLetterExchange: string | null;
  /** Deliveries a message may have before the broker dead-letters (or drops) it; quorum only. */
  deliveryLimit: number | null;
}

/** The facts of a queue by name, null where they are not known. */
export type QueueLookup = (queue: string) => QueueFacts | null;

export class QueueCatalog {
  private roles = new Map<string, Role>();
  private heads = new Map<string, number>();
  private facts = new Map<string, QueueFacts[]>();
  private resolveLoaded!: () => void;
  /** Resolves after the first successful refresh. */
  readonly loaded = new Promise<void>((resolve) => (this.resolveLoaded = resolve));

  /** `heads`: queue key -> timestamp property (seconds) of its head message, where known. */
  update(
    roles: Map<string, Role>,
    heads = new Map<string, number>(),
    facts: (QueueFacts & { name: string })[] = [],
  ): void {
    this.roles = roles;
    this.heads = heads;
    const byName = new Map<string, QueueFacts[]>();
    for (const { name, ...f } of facts) byName.set(name, [...(byName.get(name) ?? []), f]);
    this.facts = byName;
    this.resolveLoaded();
  }

  /** The names of the queues in scope (one entry per name, whatever its vhosts). */
  names(): string[] {
    return [...this.facts.keys()];
  }

  /** The queues of one vhost that have this role (dead-letter parking's allDeadLetterQueues). */
  withRole(vhost: string, role: Role): string[] {
    return [...this.facts].flatMap(([name, all]) =>
      all.some((f) => f.vhost === vhost && f.role === role) ? [name] : [],
    );
  }

  /**
   * The facts of the queue named so (spans name a queue, not its vhost): known when one queue has
   * the name, or when every queue of that name would do the same with a rejected message.
   */
  queue(name: string): QueueFacts | null {
    const all = this.facts.get(name) ?? [];
    const [one] = all;
    if (!one) return null;
    const same = all.every(
      (f) =>
        f.deadLetterExchange === one.deadLetterExchange && f.deliveryLimit === one.deliveryLimit,
    );
    return same ? one : null;
  }

  /**
   * Seconds since the head message was published, 0 for an empty queue or one whose messages
   * carry no timestamp. As fresh as the last stats refresh: after the head moves on, the age
   * stays high until the next one (at most rabbitmq.statsIntervalSeconds).
   */
  headAge(vhost: string, queue: string, ready: number, nowMs: number): number {
    const ts = this.heads.get(queueKey(vhost, queue));
    return ready > 0 && ts !== undefined ? Math.max(0, nowMs / 1000 - ts) : 0;
  }

  role(vhost: string, queue: string): Role {
    return this.roles.get(queueKey(vhost, queue)) ?? roleFromName(queue);
  }
}

/** The queues the configuration puts in scope (vhosts, include and exclude patterns). */
export function scopeFilter(
  c: ValidatedConfig['rabbitmq'],
): (vhost: string, queue: string) => boolean {
  const vhosts = new Set(c.vhosts);
  const include = c.include.map((p) => new RegExp(p));
  const exclude = c.exclude.map((p) => new RegExp(p));
  return (vhost, queue) =>
    (vhosts.size === 0 || vhosts.has(vhost)) &&
    (include.length === 0 || include.some((r) => r.test(queue))) &&
    !exclude.some((r) => r.test(queue));
}
