// What the slow stats refresh learns about the queues and the fast depth collector needs: each
// queue's role. Shared by the two rabbitmq collectors.
import type { ValidatedConfig } from '../../config.js';
import { queueKey } from './detailed.js';
import { roleFromName, type Role } from './roles.js';

export class QueueCatalog {
  private roles = new Map<string, Role>();
  private resolveLoaded!: () => void;
  /** Resolves after the first successful refresh. */
  readonly loaded = new Promise<void>((resolve) => (this.resolveLoaded = resolve));

  update(roles: Map<string, Role>): void {
    this.roles = roles;
    this.resolveLoaded();
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
