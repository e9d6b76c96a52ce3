// Reads queue depths and consumers from the broker's own /metrics/detailed endpoint (families
// queue_coarse_metrics and queue_consumer_count), the cheapest per-queue source the broker has,
// with the series reader of exposition/text.ts (50,000 lines at 10,000 queues, 30,000 of them
// read): a queue's labels are read once, then found by their text in each answer.
import { SeriesReader, ownCopy, parseLabels } from '../../../exposition/text.js';

import { queueKey, type QueueDepth } from '../../../broker/queue.js';

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
const WANTED = new Set(Object.keys(FIELDS));

/** One node's answer: the queues it reports (those it leads) and its own name. */
export interface NodeDepths {
  queues: Map<string, QueueDepth>;
  /** From rabbitmq_identity_info; null when the endpoint does not say. */
  node: string | null;
}

/** A queue as a series of the detailed families names it (own copies of the answer's text). */
export interface QueueName {
  key: string;
  vhost: string;
  queue: string;
}

function queueName(labels: Record<string, string>): QueueName | null {
  if (labels.vhost === undefined || labels.queue === undefined) return null;
  const vhost = ownCopy(labels.vhost);
  const queue = ownCopy(labels.queue);
  return { key: queueKey(vhost, queue), vhost, queue };
}

/** The per-queue series of one node's answers, each series' labels read once (SeriesReader). */
export const queueSeries = () => new SeriesReader(queueName);

/** The node an answer says it comes from (rabbitmq_identity_info), or null. */
export function identityOf(text: string): string | null {
  const start = `${IDENTITY}{`;
  for (let at = text.indexOf(start); at >= 0; at = text.indexOf(start, at + 1)) {
    if (at > 0 && text[at - 1] !== '\n') continue;
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end < 0 ? text.length : end);
    const node = parseLabels(line, IDENTITY.length)?.[0].rabbitmq_node;
    // Kept from one scrape to the next: a view of the text would keep the whole answer alive.
    return node === undefined ? null : ownCopy(node);
  }
  return null;
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
 * `series`: this node's reader, which knows the queues of its previous answer; a new queue's
 * names are copied out of the text once, so that no answer outlives its scrape.
 */
export function parseDetailed(
  text: string,
  series: SeriesReader<QueueName> = queueSeries(),
): NodeDepths {
  const queues = new Map<string, QueueDepth>();
  const live = new Set<string>();
  series.forEach(text, WANTED, (name, q, value) => {
    if (name === EXISTS) live.add(q.key);
    let depth = queues.get(q.key);
    if (!depth) {
      depth = { vhost: q.vhost, queue: q.queue, ready: 0, unacked: 0, consumers: 0 };
      queues.set(q.key, depth);
    }
    depth[FIELDS[name]!] = value;
  });
  keepLive(queues, live);
  return { queues, node: identityOf(text) };
}
