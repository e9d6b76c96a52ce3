// Which queue dead-letters into which, from the broker's own description (each queue's
// dead-letter exchange and routing key, as argument or policy, and the bindings): what
// allDeadLetterQueues parks, and what a replay target read from x-death is checked against.
// Queues sharing a dead-letter exchange and key are routed once (bindings.ts: in linear time), and
// the work pauses for the event loop as it goes (runtime/slices.ts).
import type { Slices } from '../runtime/slices.js';
import { queueBindings } from './bindings.js';
import type { BindingInfo } from './roles.js';
import type { ExchangeInfo } from './routes.js';
import { FAULT_QUEUE } from './queue.js';

export interface DeadLetterFacts {
  vhost: string;
  name: string;
  deadLetterExchange: string | null;
  deadLetterRoutingKey: string | null;
}

/**
 * Source-target pairs one topology may hold: past it an app user's thousands of queues that all
 * dead-letter everywhere would hold the exporter's memory, and the build fails instead (the last
 * topology stays).
 */
export const MAX_DEAD_LETTER_PAIRS = 1_000_000;

const key = (vhost: string, name: string) => `${vhost}\u0000${name}`;

/**
 * Per queue (vhost + name key), the queues whose dead-lettering reaches it. A queue that
 * dead-letters to the default exchange without a routing key of its own sends each message by
 * the key it was published with: no target can be named, so none is. Exchange-to-exchange
 * bindings are not followed.
 */
export async function deadLetterSources<F extends DeadLetterFacts>(
  queues: readonly F[],
  bindings: readonly BindingInfo[],
  exchanges: readonly ExchangeInfo[],
  slices: Slices,
  /** Which queues count as sources (all by default); every queue may be a target. */
  counts: (q: F) => boolean = () => true,
): Promise<Map<string, string[]>> {
  const routed = queueBindings(bindings, exchanges);
  const known = new Set(queues.map((q) => key(q.vhost, q.name)));
  const targetsOf = new Map<string, string[]>();
  const sources = new Map<string, string[]>();
  let pairs = 0;
  for (const q of queues) {
    if (slices.due()) await slices.pause();
    const dlx = q.deadLetterExchange;
    if (dlx === null || !counts(q)) continue;
    const rk = q.deadLetterRoutingKey;
    const route = `${key(q.vhost, dlx)}\u0000${rk ?? '\u0001'}`;
    let targets = targetsOf.get(route);
    if (!targets) {
      targets =
        dlx === '' ? (rk !== null ? [rk] : []) : (routed.get(key(q.vhost, dlx))?.route(rk) ?? []);
      targetsOf.set(route, targets);
    }
    for (const t of targets) {
      const target = key(q.vhost, t);
      if (t === q.name || !known.has(target)) continue;
      if (++pairs > MAX_DEAD_LETTER_PAIRS)
        throw new Error(
          `the broker's queues dead-letter into each other more than ${MAX_DEAD_LETTER_PAIRS} ways: the topology is not built`,
        );
      const list = sources.get(target);
      if (list) list.push(q.name);
      else sources.set(target, [q.name]);
    }
  }
  return sources;
}

/**
 * Per fault queue (vhost + name key), the queue it takes the faults of: MassTransit moves a message
 * its consumer threw on to `<queue>_error` (and one no consumer took to `<queue>_skipped`), acking
 * the original, with no dead-letter exchange involved. A queue so named is the fault queue of the
 * queue whose name it extends, where that queue exists in the same vhost.
 */
export function faultQueueSources(
  queues: readonly { vhost: string; name: string }[],
): Map<string, string[]> {
  const names = new Set(queues.map((q) => key(q.vhost, q.name)));
  const out = new Map<string, string[]>();
  for (const q of queues) {
    const base = FAULT_QUEUE.exec(q.name)?.[1];
    if (base !== undefined && names.has(key(q.vhost, base))) out.set(key(q.vhost, q.name), [base]);
  }
  return out;
}
