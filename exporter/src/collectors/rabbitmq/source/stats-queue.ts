// A queue as the management API lists it (/api/queues): what the broker does with a rejected
// message (its QueueFacts) and its counters when the management API is where they come from.
import type { QueueFacts } from '../../../broker/catalog.js';
import type { QueueInfo, Role } from '../../../broker/roles.js';
import type { QueueCounters } from './counters.js';

/** Where the per-queue counters came from on the last refresh. */
export const COUNTER_SOURCES = ['detailed', 'management', 'none'] as const;
export type CounterSource = (typeof COUNTER_SOURCES)[number];

export interface StatsQueue extends QueueInfo {
  type?: string;
  /** A classic queue's node; for a quorum queue, its leader's (also in `leader`). */
  node?: string;
  leader?: string;
  effective_policy_definition?: Record<string, unknown> | null;
  head_message_timestamp?: number | null;
  messages_ready?: number;
  consumers?: number;
  message_stats?: { publish?: number; deliver_get?: number; ack?: number; redeliver?: number };
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const exchange = (v: unknown) => (typeof v === 'string' ? v : null);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/**
 * What the queue does with a rejected message. Its own argument wins over a policy for the
 * dead-letter exchange; for the delivery limit the lower of the two holds. A quorum queue on
 * RabbitMQ 4 has a delivery limit of 20 unless told otherwise.
 */
export function queueFacts(q: StatsQueue, role: Role, brokerMajor: number): QueueFacts {
  const policy = q.effective_policy_definition ?? {};
  const type = q.type ?? str(q.arguments['x-queue-type']) ?? 'classic';
  const limits = [int(q.arguments['x-delivery-limit']), int(policy['delivery-limit'])].filter(
    (n): n is number => n !== null,
  );
  const deliveryLimit =
    type !== 'quorum' ? null : limits.length ? Math.min(...limits) : brokerMajor >= 4 ? 20 : null;
  return {
    vhost: q.vhost,
    type,
    role,
    // '' is the default exchange: a dead-letter exchange all the same.
    deadLetterExchange:
      exchange(q.arguments['x-dead-letter-exchange']) ?? exchange(policy['dead-letter-exchange']),
    deadLetterRoutingKey:
      str(q.arguments['x-dead-letter-routing-key']) ?? str(policy['dead-letter-routing-key']),
    deliveryLimit,
    deadLetterByPolicy:
      exchange(q.arguments['x-dead-letter-exchange']) === null &&
      exchange(policy['dead-letter-exchange']) !== null,
  };
}

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
    consumers: q.consumers ?? 0,
  };
}
