// A queue's counters as the stats collector reads them from one refresh's answer: from the
// broker's /metrics/detailed, or from the management API's statistics where it must.
import type { StatsQueue } from '../../../broker/answer.js';
import type { QueueCounters } from './counters.js';
import { COUNTER_SOURCES } from '../../../metrics/catalogue.js';

export type { StatsQueue };

/** Where the per-queue counters came from on the last refresh (the catalogue's list). */
export type CounterSource = (typeof COUNTER_SOURCES)[number];

/**
 * One queue's counts from the chosen source; null when that source has none for it yet (a queue
 * whose statistics the broker has not emitted: not observed, rather than zero).
 */
export function countsOf(
  q: StatsQueue,
  source: CounterSource,
  detailed: QueueCounters | undefined,
): QueueCounters | null {
  if (source === 'detailed') return detailed ?? null;
  if (source === 'none' || q.messages_ready === undefined) return null;
  const m = q.message_stats ?? {};
  return {
    publish: m.publish ?? 0,
    deliver_get: m.deliver_get ?? 0,
    ack: m.ack ?? 0,
    redeliver: m.redeliver ?? 0,
    ready: q.messages_ready,
    unacked: q.messages_unacknowledged ?? 0,
    consumers: q.consumers ?? 0,
    capacity: q.consumer_capacity ?? null,
  };
}
