// What the broker answers about its queues, bindings and exchanges (the management API's
// /api/queues, /api/bindings, /api/exchanges, /api/overview), as one refresh reads it
// (broker/refresh.ts), and what a queue does with a message its consumer rejects (QueueFacts).
import type { BindingInfo, QueueInfo, Role } from './roles.js';
import type { ExchangeInfo } from './routes.js';
import type { Policies, PolicyInfo } from './policies.js';

/** One refresh's reading of the broker, whole: a topology is built from it (topology.ts). */
export interface BrokerAnswer {
  queues: readonly StatsQueue[];
  bindings: readonly BindingInfo[];
  exchanges: readonly ExchangeInfo[];
  /** The vhosts' policies (policies.ts); null: the broker would not list them to this user. */
  policies: readonly PolicyInfo[] | null;
  /** The broker's version (`/api/overview`): RabbitMQ 4 gives quorum queues a delivery limit. */
  version: string | null;
  /** The cluster's name (`/api/overview` cluster_name, rabbitmq_identity_info's rabbitmq_cluster). */
  cluster?: string | null;
}

/** What the broker does with a message this queue's consumer rejects or nacks without requeue. */
export interface QueueFacts {
  vhost: string;
  /** classic, quorum or stream, as the broker names it. */
  type: string;
  role: Role;
  /** Its dead-letter exchange (argument, or policy), or null: a rejected message is dropped. */
  deadLetterExchange: string | null;
  /** The routing key dead-lettered messages get (argument, or policy); null: their own. */
  deadLetterRoutingKey: string | null;
  /** Deliveries a message may have before the broker dead-letters (or drops) it; quorum only. */
  deliveryLimit: number | null;
  /**
   * Its dead-letter exchange comes from a policy (an operator's), not from an argument of the
   * queue's declaration (any app user's).
   */
  deadLetterByPolicy?: boolean;
}

/** The facts of a queue by name, null where they are not known. */
export type QueueLookup = (queue: string) => QueueFacts | null;

export interface StatsQueue extends QueueInfo {
  type?: string;
  /** A classic queue's node; for a quorum queue, its leader's (also in `leader`). */
  node?: string;
  leader?: string;
  effective_policy_definition?: Record<string, unknown> | null;
  head_message_timestamp?: number | null;
  messages_ready?: number;
  messages_unacknowledged?: number;
  consumers?: number;
  /** The share of time the queue could deliver to a consumer at once (0-1; statistics on). */
  consumer_capacity?: number;
  message_stats?: { publish?: number; deliver_get?: number; ack?: number; redeliver?: number };
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const exchange = (v: unknown) => (typeof v === 'string' ? v : null);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/**
 * What the queue does with a rejected message. Its own argument wins over a policy for the
 * dead-letter exchange; for the delivery limit the lower of the two holds. A quorum queue on
 * RabbitMQ 4 has a delivery limit of 20 unless told otherwise. The policy is the one the broker
 * lists for the queue, or where it lists none (policies.ts) the one its policies apply; null when
 * the dead-letter exchange depends on a policy that cannot be told: not known, never guessed.
 */
export function queueFacts(
  q: StatsQueue,
  role: Role,
  brokerMajor: number,
  policies: Policies | null,
): QueueFacts | null {
  const type = q.type ?? str(q.arguments['x-queue-type']) ?? 'classic';
  const found =
    'effective_policy_definition' in q
      ? (q.effective_policy_definition ?? {})
      : (policies?.effective(q.vhost, q.name, type) ?? null);
  if (found === null && exchange(q.arguments['x-dead-letter-exchange']) === null) return null;
  const policy = found ?? {};
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
