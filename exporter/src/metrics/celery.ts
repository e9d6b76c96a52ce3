// The Celery event consumer's metrics: tasks, workers, queues and the events themselves.
// docs/metrics.md, "Celery", is generated from this list (npm run generate).
import type { MetricSpec } from './spec.js';

/** Why a Celery event was set aside (the intake's reasons). */
export const SKIP_REASONS = [
  'malformed',
  'unknown_type',
  'invalid_id',
  'out_of_window',
  'too_large',
  'store_rejected',
  'store_unavailable',
] as const;

export const CELERY_METRICS = [
  {
    name: 'acktrail_celery_tasks_total',
    type: 'counter',
    help: 'Task state transitions (sent, received, started, succeeded, failed, retried, revoked, rejected).',
    labels: ['task', 'queue', 'state'],
    values: {
      state: [
        'sent',
        'received',
        'started',
        'succeeded',
        'failed',
        'retried',
        'revoked',
        'rejected',
      ],
    },
    doc: "task state transitions: `sent`, `received`, `started`, `succeeded`, `failed`, `retried`, `revoked`, `rejected`; a final event that comes before anything has named its task (a worker's `task-revoked` can overtake the sender's `task-sent` on Redis) is counted once the name comes, or after 5 s without it; a task's `failed` series is born at 0 with its first event, so that `increase()` sees its first failure",
  },
  {
    name: 'acktrail_celery_task_runtime_seconds',
    type: 'histogram',
    help: 'Runtime of succeeded tasks, as the worker reports it.',
    labels: ['task', 'queue'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    doc: 'runtime of succeeded tasks, as the worker reports it',
  },
  {
    name: 'acktrail_celery_task_queue_wait_seconds',
    type: 'histogram',
    help: 'From task-sent (or task-received when the client sends no task-sent events) to task-started.',
    labels: ['task', 'queue'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
    doc: 'task-sent to task-started (task-received to task-started when the client sends no task-sent events)',
  },
  {
    name: 'acktrail_celery_workers_online',
    type: 'gauge',
    help: 'Workers whose last heartbeat is at most two heartbeat periods old.',
    labels: [],
    doc: 'workers whose last heartbeat is at most two heartbeat periods old',
  },
  {
    name: 'acktrail_celery_worker_up',
    type: 'gauge',
    help: 'Per worker: 1 while its heartbeats arrive; dropped after workerExpirySeconds offline.',
    labels: ['worker'],
    doc: 'per worker, 1 or 0; the label goes away `workerExpirySeconds` after the worker went offline or silent',
  },
  {
    name: 'acktrail_celery_worker_active_tasks',
    type: 'gauge',
    help: 'Tasks the worker is executing, from its last heartbeat.',
    labels: ['worker'],
    doc: 'tasks the worker is executing, from its last heartbeat',
  },
  {
    name: 'acktrail_celery_queue_length',
    type: 'gauge',
    help: 'Messages ready in a Celery queue (the broker, checked every few seconds; on Redis the list and its priority lists).',
    labels: ['queue'],
    doc: "ready messages of a Celery queue, every 5 s, `celery.queues` and the queues tasks are sent to (RabbitMQ: a passive declare; Redis: `LLEN` of the queue's list and of its priority lists)",
  },
  {
    name: 'acktrail_celery_unacked_tasks',
    type: 'gauge',
    help: "Redis broker: task messages reserved by workers and not yet acknowledged (kombu's unacked hash).",
    labels: [],
    doc: 'Redis broker: task messages reserved by workers and not acknowledged (`HLEN unacked`)',
  },
  {
    name: 'acktrail_celery_unacked_oldest_age_seconds',
    type: 'gauge',
    help: 'Redis broker: age of the oldest reserved, unacknowledged task message (0 when none); past the visibility timeout Celery restores it to its queue.',
    labels: [],
    doc: 'Redis broker: age of the oldest of them (`unacked_index`); past the visibility timeout Celery gives it to another worker',
  },
  {
    name: 'acktrail_celery_visibility_timeout_seconds',
    type: 'gauge',
    help: "Redis broker: the visibility timeout acktrail was configured with (celery.redis.visibilityTimeoutSeconds, Celery's broker_transport_options).",
    labels: [],
    doc: 'Redis broker: `celery.redis.visibilityTimeoutSeconds`, to compare the age with',
  },
  {
    name: 'acktrail_celery_task_redeliveries_total',
    type: 'counter',
    help: 'A task started again without having ended or retried: its message was delivered again (a worker lost, the visibility timeout passed).',
    labels: ['task', 'queue'],
    doc: 'a task started again without having ended or retried: its message came back (a worker lost with `task_acks_late`, the visibility timeout passed)',
  },
  {
    name: 'acktrail_celery_broker_reconnects_total',
    type: 'counter',
    help: 'Connections to the Celery broker made again after the first; on Redis, events published meanwhile are lost (pub/sub keeps nothing).',
    labels: [],
    doc: 'connections to the Celery broker made again after the first; on Redis every one is a gap in the events',
  },
  {
    name: 'acktrail_celery_events_last_received_timestamp_seconds',
    type: 'gauge',
    help: 'When the last Celery event message arrived (unix seconds); 0 before the first.',
    labels: [],
    doc: 'when the last event message arrived (unix seconds; 0 before the first)',
  },
  {
    name: 'acktrail_celery_events_total',
    type: 'counter',
    help: 'Celery events received, by type.',
    labels: ['type'],
    doc: 'events received',
  },
  {
    name: 'acktrail_celery_events_skipped_total',
    type: 'counter',
    help: 'Celery events set aside: malformed (not JSON, no type or timestamp), unknown_type, invalid_id (not 1-128 printable ASCII characters), out_of_window (timestamp outside the retention window), too_large (message over celery.maxMessageBytes), store_rejected (PostgreSQL refused its step), store_unavailable (Redis broker: the store was away longer than acktrail holds steps, or still away when the exporter stopped).',
    labels: ['reason'],
    values: {
      reason: SKIP_REASONS,
    },
    doc: 'messages or list items set aside: `malformed` (not JSON, no type or timestamp), `unknown_type`, `invalid_id` (not 1-128 printable ASCII characters), `out_of_window` (timestamp outside the retention window, or more than a day ahead), `too_large` (message over `celery.maxMessageBytes`), `store_rejected` (PostgreSQL refused its step), `store_unavailable` (Redis: the store was away longer than 200,000 steps, or still away when the exporter stopped)',
  },
] as const satisfies readonly MetricSpec[];
