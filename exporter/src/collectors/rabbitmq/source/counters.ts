// Per-queue message counters from the broker's own /metrics/detailed (RabbitMQ 3.13 and 4.x:
// families queue_delivery_metrics, queue_exchange_metrics, with queue_coarse_metrics and
// queue_consumer_count for the queue's status, queue_metrics for its consumer capacity), read from
// every node. RabbitMQ 4 as the official
// image ships it turns the management API's statistics off
// (management_agent.disable_metrics_collector), so there these are the only counters; on 3.10 to
// 3.12 the families do not exist, and the management API's message_stats stay the source.
import { forEachSample } from '../../../exposition/text.js';
import { EXISTS, checkIdentity, identityOf, keepLive, queueKey } from './detailed.js';

export const COUNTERS_PATH =
  '/metrics/detailed?family=queue_delivery_metrics&family=queue_exchange_metrics&family=queue_coarse_metrics&family=queue_consumer_count&family=queue_metrics';

/** What the stats collector reads per queue, whatever its source. */
export interface QueueCounters {
  publish: number;
  deliver_get: number;
  ack: number;
  redeliver: number;
  ready: number;
  /** Delivered, not yet acknowledged. */
  unacked: number;
  consumers: number;
  /** The broker's consumer capacity (0-1); null: the source does not say. */
  capacity: number | null;
}

type Summed = Exclude<keyof QueueCounters, 'capacity'>;
const FIELD: Record<string, Summed> = {
  rabbitmq_detailed_queue_exchange_messages_published_total: 'publish',
  rabbitmq_detailed_queue_messages_delivered_ack_total: 'deliver_get',
  rabbitmq_detailed_queue_messages_delivered_total: 'deliver_get',
  rabbitmq_detailed_queue_get_ack_total: 'deliver_get',
  rabbitmq_detailed_queue_get_total: 'deliver_get',
  rabbitmq_detailed_queue_messages_acked_total: 'ack',
  rabbitmq_detailed_queue_messages_redelivered_total: 'redeliver',
  rabbitmq_detailed_queue_messages_ready: 'ready',
  rabbitmq_detailed_queue_messages_unacked: 'unacked',
  rabbitmq_detailed_queue_consumers: 'consumers',
};
/** queue_metrics' only series read here (the family has 17 or 18 a queue). */
const CAPACITY = 'rabbitmq_detailed_queue_consumer_capacity';
const WANTED = new Set([...Object.keys(FIELD), CAPACITY]);
/** The family that says the node has per-queue delivery counters at all. */
const MARKER = '# TYPE rabbitmq_detailed_queue_messages_acked_total ';

/**
 * One node's answer: its queues' counters (summed over the series that make each: delivered is
 * delivered plus fetched, published is per exchange), or null when the node has no such families.
 * Throws when `node` is given and the answer is another node's.
 */
export function parseCounters(
  text: string,
  node: string | null = null,
  url = '',
): Map<string, QueueCounters> | null {
  if (!text.includes(MARKER)) return null;
  const queues = new Map<string, QueueCounters>();
  const live = new Set<string>();
  forEachSample(text, WANTED, (name, labels, value) => {
    const { vhost, queue } = labels;
    if (vhost === undefined || queue === undefined) return;
    const key = queueKey(vhost, queue);
    if (name === EXISTS) live.add(key);
    let q = queues.get(key);
    if (!q) {
      q = {
        publish: 0,
        deliver_get: 0,
        ack: 0,
        redeliver: 0,
        ready: 0,
        unacked: 0,
        consumers: 0,
        capacity: null,
      };
      queues.set(key, q);
    }
    if (name === CAPACITY) q.capacity = value;
    else q[FIELD[name]!] += value;
  });
  keepLive(queues, live);
  checkIdentity(node, identityOf(text), url);
  return queues;
}

/**
 * Every node's queues in one map. A queue a node leads is reported by that node only; should two
 * nodes report one (a leader just moved), the larger counters win: they are cumulative.
 */
export function mergeCounters(answers: Map<string, QueueCounters>[]): Map<string, QueueCounters> {
  const out = new Map<string, QueueCounters>();
  for (const answer of answers)
    for (const [key, q] of answer) {
      const had = out.get(key);
      out.set(key, had && had.ack + had.deliver_get > q.ack + q.deliver_get ? had : q);
    }
  return out;
}
