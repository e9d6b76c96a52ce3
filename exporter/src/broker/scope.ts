// Which queues acktrail looks at: the configuration's vhosts and include and exclude patterns,
// never acktrail's own queues (the Celery events queue it declares, parking's set-aside queue):
// they are not the pipeline's work, and a work queue without a consumer would page.
import type { ValidatedConfig } from '../config.js';
import { linearRegex } from '../linear-regex.js';

/** The queues acktrail itself declares, by name. */
export function ownQueues(c: Pick<ValidatedConfig, 'celery' | 'deadLetters'>): Set<string> {
  return new Set(
    [c.celery.queue, c.deadLetters.setAsideQueue].filter((q): q is string => q !== null),
  );
}

/** The queues the configuration puts in scope (vhosts, include and exclude patterns). */
export function scopeFilter(
  c: Pick<ValidatedConfig, 'rabbitmq' | 'celery' | 'deadLetters'>,
): (vhost: string, queue: string) => boolean {
  const { rabbitmq } = c;
  const vhosts = new Set(rabbitmq.vhosts);
  const include = rabbitmq.include.map(linearRegex);
  const exclude = rabbitmq.exclude.map(linearRegex);
  const own = ownQueues(c);
  return (vhost, queue) =>
    (vhosts.size === 0 || vhosts.has(vhost)) &&
    !own.has(queue) &&
    (include.length === 0 || include.some((r) => r.test(queue))) &&
    !exclude.some((r) => r.test(queue));
}
