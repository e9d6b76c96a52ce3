// Which queues acktrail looks at: the configuration's vhosts and include and exclude patterns.
import type { ValidatedConfig } from '../config.js';
import { linearRegex } from '../linear-regex.js';

/** The queues the configuration puts in scope (vhosts, include and exclude patterns). */
export function scopeFilter(
  c: ValidatedConfig['rabbitmq'],
): (vhost: string, queue: string) => boolean {
  const vhosts = new Set(c.vhosts);
  const include = c.include.map(linearRegex);
  const exclude = c.exclude.map(linearRegex);
  return (vhost, queue) =>
    (vhosts.size === 0 || vhosts.has(vhost)) &&
    (include.length === 0 || include.some((r) => r.test(queue))) &&
    !exclude.some((r) => r.test(queue));
}
