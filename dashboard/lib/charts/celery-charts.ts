// What the overview's Celery section draws (ui/overview/CelerySection.tsx): each chart's PromQL
// over acktrail_celery_* (docs/metrics.md "Celery"), and the query that says Celery is there.
import type { ChartSpec } from './overview';
import { oneReplica } from '../data/replicas';

/**
 * The Celery section's charts (docs/metrics.md "Celery"). Task counts come from the events one
 * replica consumes at a time (summed); workers and queue lengths are the same on every replica
 * that sees them (max).
 */
export function celeryCharts(): ChartSpec[] {
  const byTask = (l: Record<string, string>) => l.task ?? '?';
  const quantile = (metric: string) =>
    `histogram_quantile(0.95, sum by (le, task) (rate(${metric}_bucket[$rw])))`;
  const none =
    'No Celery task events in this range: do the workers send events (celery worker -E)?';
  return [
    {
      id: 'celery-tasks',
      title: 'Celery tasks per second, by state',
      unit: 'per_second',
      queries: [
        {
          expr: 'sum by (state) (rate(acktrail_celery_tasks_total[$rw]))',
          legend: (l) => l.state ?? '?',
        },
      ],
      empty: none,
    },
    {
      id: 'celery-failures',
      title: 'Celery failures per second, by task',
      unit: 'per_second',
      queries: [
        {
          expr: 'sum by (task) (rate(acktrail_celery_tasks_total{state="failed"}[$rw]))',
          legend: byTask,
        },
      ],
      empty: 'No task failed in this range.',
    },
    {
      id: 'celery-runtime',
      title: 'Celery task runtime, p95',
      unit: 'seconds',
      queries: [{ expr: quantile('acktrail_celery_task_runtime_seconds'), legend: byTask }],
      empty: 'No task succeeded in this range.',
    },
    {
      id: 'celery-queue-wait',
      title: 'Celery queue wait, p95',
      unit: 'seconds',
      queries: [{ expr: quantile('acktrail_celery_task_queue_wait_seconds'), legend: byTask }],
      empty: 'No task started in this range.',
    },
    {
      id: 'celery-workers',
      title: 'Celery workers up',
      unit: 'count',
      queries: [
        {
          expr: oneReplica('acktrail_celery_workers_online'),
          legend: () => 'workers',
        },
      ],
      empty: 'No worker heartbeat seen.',
    },
    {
      id: 'celery-queue-length',
      title: 'Celery queue length',
      unit: 'count',
      queries: [
        {
          expr: 'max by (queue) (acktrail_celery_queue_length)',
          legend: (l) => l.queue ?? '?',
        },
      ],
      empty: 'No Celery queue length read.',
    },
  ];
}

/** Whether the Celery section shows: the exporter has counted Celery tasks. */
export const CELERY_PRESENT = 'count(acktrail_celery_tasks_total)';
