// What the slow stats refresh learns about the queues and the fast depth collector needs: each
// queue's role, and the timestamp of the message at its head. Shared by the two rabbitmq
// collectors.
import type { ValidatedConfig } from '../../config.js';
import { queueKey } from './detailed.js';
import { roleFromName, type Role } from './roles.js';

export class QueueCatalog {
  private roles = new Map<string, Role>();
  private heads = new Map<string, number>();
  private resolveLoaded!: () => void;
  /** Resolves after the first successful refresh. */
  readonly loaded = new Promise<void>((resolve) => (this.resolveLoaded = resolve));

  /** `heads`: queue key -> timestamp property (seconds) of its head message, where known. */
  update(roles: Map<string, Role>, heads = new Map<string, number>()): void {
    this.roles = roles;
    this.heads = heads;
    this.resolveLoaded();
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
