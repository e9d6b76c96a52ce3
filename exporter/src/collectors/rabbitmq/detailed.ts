// Reads queue depths and consumers from the broker's own /metrics/detailed endpoint (families
// queue_coarse_metrics and queue_consumer_count), the cheapest per-queue source the broker has.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface QueueDepth {
  vhost: string;
  queue: string;
  ready: number;
  unacked: number;
  consumers: number;
}

export const DETAILED_PATH =
  '/metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count';

const FIELDS: Record<string, keyof Pick<QueueDepth, 'ready' | 'unacked' | 'consumers'>> = {
  rabbitmq_detailed_queue_messages_ready: 'ready',
  rabbitmq_detailed_queue_messages_unacked: 'unacked',
  rabbitmq_detailed_queue_consumers: 'consumers',
};

export const queueKey = (vhost: string, queue: string) => `${vhost}\u0000${queue}`;

export function parseDetailed(text: string): Map<string, QueueDepth> {
  const queues = new Map<string, QueueDepth>();
  for (const family of parsePrometheusTextFormat(text)) {
    const field = FIELDS[family.name];
    if (!field) continue;
    for (const m of family.metrics) {
      const { vhost, queue } = m.labels ?? {};
      if (vhost === undefined || queue === undefined) continue;
      const key = queueKey(vhost, queue);
      let q = queues.get(key);
      if (!q) {
        q = { vhost, queue, ready: 0, unacked: 0, consumers: 0 };
        queues.set(key, q);
      }
      q[field] = Number(m.value);
    }
  }
  return queues;
}
