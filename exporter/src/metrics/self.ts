// acktrail's own health: collectors, background parts, ingest admission, labels, the store's pools, build and memory.
// docs/metrics.md, "Self-monitoring", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

/** Why a request to /v1/traces was refused before its spans were looked at (the receiver's). */
export const REFUSAL_REASONS = [
  'unauthorized',
  'over_budget',
  'over_memory',
  'store_busy',
  'store_unavailable',
  'shutting_down',
  'idle_body',
  'slow_body',
] as const;

export const SELF_METRICS = [
  {
    name: 'acktrail_collector_success',
    type: 'gauge',
    help: 'Whether the last run of the collector succeeded (1) or failed or timed out (0).',
    labels: ['collector'],
    doc: "1 when the collector's last run succeeded, 0 when it failed or timed out",
  },
  {
    name: 'acktrail_collector_duration_seconds',
    type: 'gauge',
    help: 'How long the last run of the collector took.',
    labels: ['collector'],
    doc: 'how long its last run took',
  },
  {
    name: 'acktrail_collector_data_age_seconds',
    type: 'gauge',
    help: 'Age of the data served by a collector with a minimum interval (0 for the others).',
    labels: ['collector'],
    doc: 'age of the data served by `rabbitmq_stats`, `rabbitmq_acks`, `queue_heads` and `aggregates`',
  },
  {
    name: 'acktrail_part_up',
    type: 'gauge',
    help: 'Whether a background part of the exporter works (1) or not (0): broker_topology, journey_store, celery, dead_letters.',
    labels: ['part'],
    doc: '1 while a background part works: `broker_topology`, `journey_store`, `celery`, `dead_letters`',
  },
  {
    name: 'acktrail_topology_refreshes_total',
    type: 'counter',
    help: "Reads of the broker's topology, by trigger: scheduled (every rabbitmq.statsIntervalSeconds) or early (spans named a queue the topology lacked; at most two per sender between scheduled ones).",
    labels: ['trigger'],
    values: { trigger: ['scheduled', 'early'] },
    doc: "reads of the broker's topology: `scheduled` (every `rabbitmq.statsIntervalSeconds`) or `early` (spans named a queue it lacked; at most two per sender between scheduled ones)",
  },
  {
    name: 'acktrail_background_errors_total',
    type: 'counter',
    help: 'Failures of background work (store maintenance, pool errors, the Celery consumer) and errors that reached the process unhandled (database, connection, process), by part.',
    labels: ['part'],
    doc: 'failures of background work: migrations, health checks, partition maintenance, lost pool connections (`pipeline_database` too), the Celery connection; and what reached the process unhandled (`database`, `connection`: a lost connection, survived; `process`: anything else, after which the process exits 1 when it was an exception, docs/operations.md)',
  },
  {
    name: 'acktrail_ingest_refused_total',
    type: 'counter',
    help: 'Requests to /v1/traces refused before their spans were read: unauthorized (401), over_budget (the in-flight byte budget), over_memory (the exporter over memory.budgetBytes), store_busy (the write queue is full), store_unavailable, shutting_down (503 with Retry-After for all but unauthorized), idle_body (nothing sent for bodyIdleTimeoutSeconds), slow_body (not whole within bodyTimeoutSeconds).',
    labels: ['reason'],
    values: {
      reason: REFUSAL_REASONS,
    },
    doc: '`/v1/traces` requests refused before their spans were read: `unauthorized`, `over_budget`, `over_memory` (the exporter over `memory.budgetBytes`), `store_busy`, `store_unavailable`, `shutting_down`, `idle_body` (nothing sent for `bodyIdleTimeoutSeconds`), `slow_body` (not whole within `bodyTimeoutSeconds`)',
  },
  {
    name: 'acktrail_ingest_inflight_bytes',
    type: 'gauge',
    help: 'Bytes of OTLP request bodies (after inflation) being read or worked on now; journeys.maxInflightBytes at most.',
    labels: [],
    doc: 'bytes of OTLP bodies being read or worked on now (at most `journeys.maxInflightBytes`)',
  },
  {
    name: 'acktrail_label_overflow_total',
    type: 'counter',
    help: 'Observations whose label value was folded into "other" because the label (or label pair) had reached its cap of distinct values.',
    labels: ['label'],
    doc: 'observations whose label value went to `other` because its label (or label pair) was at its cap: `queue`, `dead_letter_reason`, `parked_reason`, `exchange_or_routing_key`, `event_type`, `status`, `provider`, `celery_task`, `celery_queue`, `celery_task_queue`, `celery_worker`',
  },
  {
    name: 'acktrail_store_reads_total',
    type: 'counter',
    help: 'Journey store reads (API lookups and lists, Celery workflows, queue heads) by the pool that served them: replica or primary.',
    labels: ['pool'],
    values: { pool: ['replica', 'primary'] },
    doc: 'journey store reads (API lookups and lists, Celery workflows, queue heads) by the pool that served them: `replica` or `primary`',
  },
  {
    name: 'acktrail_store_replica_up',
    type: 'gauge',
    help: 'Whether the read replica answered its last check (1) or not (0); absent without one.',
    labels: [],
    doc: '1 when the read replica answered its last check; only with `ACKTRAIL_DATABASE_READ_URL`',
  },
  {
    name: 'acktrail_store_replica_lag_seconds',
    type: 'gauge',
    help: "How far the journey store's read replica is behind the primary (ACKTRAIL_DATABASE_READ_URL); absent without one.",
    labels: [],
    doc: "how far the read replica's replay is behind (0 when it has replayed all it received); only with a replica",
  },
  {
    name: 'acktrail_build_info',
    type: 'gauge',
    help: 'acktrail build information: its version and the source revision it was built from; always 1.',
    labels: ['version', 'revision'],
    doc: 'always 1; `revision`: the source revision the build was made from (`git rev-parse HEAD`, or `SOURCE_REVISION` for a Docker build), `unknown` where not recorded',
  },
  {
    name: 'acktrail_memory_budget_bytes',
    type: 'gauge',
    help: 'The memory the exporter keeps its resident set under (memory.budgetBytes): over it, inputs stop taking more.',
    labels: [],
    doc: '`memory.budgetBytes`: the resident memory the exporter keeps under (docs/security.md)',
  },
  {
    name: 'acktrail_memory_over_budget',
    type: 'gauge',
    help: '1 while the exporter is over its memory budget and refuses or pauses every input, else 0.',
    labels: [],
    doc: '1 while the exporter is over its memory budget: OTLP refused (`over_memory`), parking and the Celery AMQP consumer paused; else 0',
  },
] as const satisfies readonly MetricSpec[];
