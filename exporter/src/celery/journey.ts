// A Celery task's journey, in the shape of every other journey: its state, retries and workflow
// (task.ts) and its steps on a time line.
import { buildTimeline } from '../journeys/assemble/timeline.js';
import type { Journey, JourneyKind } from '../journeys/assemble/assemble.js';
import type { StoredRow } from '../journeys/model/steps.js';
import { celeryTask, celeryVerdict, type CeleryTask, type WorkflowTask } from './task.js';

const FINAL_KIND = {
  SUCCESS: 'task_succeeded',
  FAILURE: 'task_failed',
  REVOKED: 'task_revoked',
  REJECTED: 'task_rejected',
} as const;

/** A Celery task's journey: its events' steps, and the other tasks of its workflow. */
export function assembleCeleryTask(
  taskId: string,
  steps: StoredRow[],
  workflow: WorkflowTask[],
): Journey & { celery: CeleryTask } {
  const task = celeryTask(steps, workflow);
  const kinds: JourneyKind[] = [];
  if (task.redeliveries) kinds.push('redelivered');
  if (task.retries.length) kinds.push('retried');
  kinds.push(
    task.state in FINAL_KIND ? FINAL_KIND[task.state as keyof typeof FINAL_KIND] : 'in_flight',
  );
  const rootId = task.workflow.rootId;
  return {
    eventId: taskId,
    aggregate: rootId ? { type: 'celery_workflow', id: rootId } : null,
    verdict: celeryVerdict(task),
    kinds,
    publishes: 0,
    deliveries: task.states.filter((s) => s.state === 'RECEIVED').length,
    retries: {
      count: task.retries.length,
      delaysMs: task.retries.flatMap((r) => (r.countdownMs === null ? [] : [r.countdownMs])),
    },
    deadLetter: null,
    attempts: [],
    traceIds: [],
    timeline: buildTimeline(steps, null),
    notes: [],
    celery: task,
  };
}
