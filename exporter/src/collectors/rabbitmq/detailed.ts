// Reads queue depths and consumers from the broker's own /metrics/detailed endpoint (families
// queue_coarse_metrics and queue_consumer_count), the cheapest per-queue source the broker has,
// with the text-format reader of exposition/text.ts (30,000 lines at 10,000 queues).
import { forEachSample, ownCopy } from '../../exposition/text.js';

import { queueKey, type QueueDepth } from '../../broker/queue.js';

export { queueKey, type QueueDepth };

export const DETAILED_PATH =
  '/metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count';

const FIELDS: Record<string, keyof Pick<QueueDepth, 'ready' | 'unacked' | 'consumers'>> = {
  rabbitmq_detailed_queue_messages_ready: 'ready',
  rabbitmq_detailed_queue_messages_unacked: 'unacked',
  rabbitmq_detailed_queue_consumers: 'consumers',
};

export const IDENTITY = 'rabbitmq_identity_info';

/** Refuses an answer from another node than the one asked (an endpoint guessed wrong). */
export function checkIdentity(asked: string | null, answered: string | null, url: string): void {
  if (asked && answered && asked !== answered)
    throw new Error(`${url} answers as ${answered}: list each node's endpoint in rabbitmq.nodes`);
}
const WANTED = new Set([...Object.keys(FIELDS), IDENTITY]);

/** One node's answer: the queues it reports (those it leads) and its own name. */
export interface NodeDepths {
  queues: Map<string, QueueDepth>;
  /** From rabbitmq_identity_info; null when the endpoint does not say. */
  node: string | null;
}

/**
 * A queue exists while the broker reports its depth (queue_coarse_metrics). RabbitMQ 4 keeps a
 * deleted queue's other families (queue_consumer_count, queue_metrics) until its metrics garbage
 * collection, up to two minutes later: samples of those alone name no queue.
 */
export const EXISTS = 'rabbitmq_detailed_queue_messages_ready';

/** Deletes from `queues` the keys not in `live`. */
export function keepLive<T>(queues: Map<string, T>, live: Set<string>): void {
  for (const key of queues.keys()) if (!live.has(key)) queues.delete(key);
}

/**
 * `known`: the queues of the previous answer, whose names are reused; a new queue's names and the
 * node's are copied out of the text (ownCopy), so that no answer outlives its scrape.
 */
export function parseDetailed(
  text: string,
  known: ReadonlyMap<string, QueueDepth> = new Map(),
): NodeDepths {
  const queues = new Map<string, QueueDepth>();
  const live = new Set<string>();
  let node: string | null = null;
  forEachSample(text, WANTED, (name, labels, value) => {
    if (name === IDENTITY) {
      // Kept from one scrape to the next (the node's identity, its labels): a view of the text
      // would keep the whole answer alive with it.
      node = labels.rabbitmq_node === undefined ? null : ownCopy(labels.rabbitmq_node);
      return;
    }
    const { vhost, queue } = labels;
    if (vhost === undefined || queue === undefined) return;
    const key = queueKey(vhost, queue);
    if (name === EXISTS) live.add(key);
    let q = queues.get(key);
    if (!q) {
      const had = known.get(key);
      q = {
        vhost: had?.vhost ?? ownCopy(vhost),
        queue: had?.queue ?? ownCopy(queue),
        ready: 0,
        unacked: 0,
        consumers: 0,
      };
      queues.set(key, q);
    }
    q[FIELDS[name]!] = value;
  });
  keepLive(queues, live);
  return { queues, node };
}
