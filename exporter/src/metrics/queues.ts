// The queue collectors' metrics: depths, counters, capacity and status per queue in scope, and the broker they come from.
// docs/metrics.md, "Queues", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

/**
 * Where the per-queue counters come from: the broker's /metrics/detailed, its management
 * statistics, neither.
 */
export const COUNTER_SOURCES = ['detailed', 'management', 'none'] as const;

export const QUEUE_METRICS = [
  {
    name: 'acktrail_queue_messages_ready',
    type: 'gauge',
    help: 'Messages ready for delivery.',
    labels: ['vhost', 'queue', 'role'],
    doc: 'messages ready for delivery',
  },
  {
    name: 'acktrail_queue_messages_unacked',
    type: 'gauge',
    help: 'Messages delivered and not yet acknowledged.',
    labels: ['vhost', 'queue', 'role'],
    doc: 'delivered, not yet acknowledged',
  },
  {
    name: 'acktrail_queue_consumers',
    type: 'gauge',
    help: 'Consumers on the queue.',
    labels: ['vhost', 'queue', 'role'],
    doc: 'consumers on the queue',
  },
  {
    name: 'acktrail_queue_messages_published_total',
    type: 'counter',
    help: 'Messages published into the queue (broker statistics).',
    labels: ['vhost', 'queue', 'role'],
    doc: 'messages published into the queue (broker statistics)',
  },
  {
    name: 'acktrail_queue_messages_delivered_total',
    type: 'counter',
    help: 'Messages delivered or fetched from the queue (broker statistics).',
    labels: ['vhost', 'queue', 'role'],
    doc: 'deliveries and basic.gets (`deliver_get`)',
  },
  {
    name: 'acktrail_queue_messages_acked_total',
    type: 'counter',
    help: 'Deliveries acknowledged (broker statistics).',
    labels: ['vhost', 'queue', 'role'],
    doc: 'acknowledgements',
  },
  {
    name: 'acktrail_queue_messages_redelivered_total',
    type: 'counter',
    help: 'Deliveries with the redelivered flag (broker statistics).',
    labels: ['vhost', 'queue', 'role'],
    doc: 'deliveries with the redelivered flag',
  },
  {
    name: 'acktrail_queue_head_age_seconds',
    type: 'gauge',
    help: 'Age of the oldest ready message: from its timestamp property (broker statistics), otherwise from the journeys (published, not yet delivered); 0 when the queue is empty or neither knows.',
    labels: ['vhost', 'queue', 'role'],
    doc: 'age of the oldest ready message (0 when empty)',
  },
  {
    name: 'acktrail_queue_consumer_capacity_ratio',
    type: 'gauge',
    help: "RabbitMQ's consumer capacity (consumer utilisation): the share of time the queue could deliver to a consumer at once, 0 to 1. Below 1 its consumers' prefetch or speed holds messages back; 0 with no consumers. As of the last topology refresh; absent where the broker does not say.",
    labels: ['vhost', 'queue', 'role'],
    doc: "the broker's consumer capacity, 0 to 1 (see below); absent where the broker does not say",
  },
  {
    name: 'acktrail_rabbitmq_node_up',
    type: 'gauge',
    help: 'Whether the broker node answered the last read (1) or not (0).',
    labels: ['node'],
    doc: '1 when the broker node answered the last read, else 0',
  },
  {
    name: 'acktrail_queue_info',
    type: 'gauge',
    help: "Always 1: each queue in scope with its role and type (classic, quorum, stream), to join the broker's own series by role.",
    labels: ['vhost', 'queue', 'role', 'type'],
    doc: "always 1: each queue in scope with its type (`classic`, `quorum`, `stream`), to join the broker's own series by role",
  },
  {
    name: 'acktrail_queue_status',
    type: 'gauge',
    help: "A work queue's health over its last rabbitmq.statusWindowSeconds (Burrow's evaluation): 1 for its status (ok, warn: the backlog grows while consumers ack, stall: messages ready, consumers attached, no ack, stop: no consumer while messages wait, unknown: no counters to judge by), 0 for the others.",
    labels: ['vhost', 'queue', 'role', 'status'],
    values: { status: ['ok', 'warn', 'stall', 'stop', 'unknown'] },
    doc: "a work queue's health: 1 for its status (`ok`, `warn`, `stall`, `stop`), 0 for the other three (see below); `unknown` 1 alone when the broker gives no counters",
  },
  {
    name: 'acktrail_rabbitmq_counters_source',
    type: 'gauge',
    help: "Where the per-queue counters (published, delivered, acked, redelivered) and so the queue status come from: 1 for the source of the last refresh (detailed: the broker's /metrics/detailed; management: the management API's statistics; none: neither has them, every work queue's status is unknown), 0 for the others.",
    labels: ['source'],
    values: { source: COUNTER_SOURCES },
    doc: "where the per-queue counters come from: 1 for `detailed` (the broker's `/metrics/detailed`), `management` (its statistics) or `none`, 0 for the others",
  },
  {
    name: 'acktrail_rabbitmq_identity_info',
    type: 'gauge',
    help: 'Always 1: the RabbitMQ cluster this exporter reads, named as the broker names it (/api/overview cluster_name, rabbitmq_identity_info\'s rabbitmq_cluster); "unknown" until the broker has answered. Dashboards choose exporters by it.',
    labels: ['rabbitmq_cluster'],
    doc: 'always 1: the cluster this exporter reads, as the broker names it; `unknown` until it has answered',
  },
] as const satisfies readonly MetricSpec[];
