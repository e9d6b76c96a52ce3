// A Celery task's journey, in the shape of every other journey: its state, retries and workflow
// (model/celery-task.ts), its kinds (model/kinds.ts), a verdict and its steps on a time line.
import type { StoredRow } from '../model/steps.js';
import { celeryTask, type CeleryTask, type WorkflowTask } from '../model/celery-task.js';
import { celeryKinds } from '../model/index.js';
import type { Journey } from './assemble.js';
import { buildTimeline } from './timeline.js';

/** A Celery task's journey: its events' steps, and the other tasks of its workflow. */
export function assembleCeleryTask(
  taskId: string,
  steps: StoredRow[],
  workflow: WorkflowTask[],
): Journey & { celery: CeleryTask } {
  const task = celeryTask(steps, workflow);
  const rootId = task.workflow.rootId;
  return {
    eventId: taskId,
    aggregate: rootId ? { type: 'celery_workflow', id: rootId } : null,
    verdict: celeryVerdict(task),
    kinds: celeryKinds(task),
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
    inferred: [],
    celery: task,
  };
}

/** The one-line verdict of a task journey. */
export function celeryVerdict(t: CeleryTask): string {
  const name = t.name ?? 'task';
  const on = t.worker ? ` on ${t.worker}` : '';
  const retried =
    (t.retries.length
      ? ` after ${t.retries.length === 1 ? '1 retry' : `${t.retries.length} retries`}`
      : '') +
    (t.redeliveries
      ? ` (started ${t.redeliveries + 1} times: delivered again after a start that never ended)`
      : '');
  switch (t.state) {
    case 'SUCCESS':
      return `${name} succeeded${on}${retried}${t.runtimeMs === null ? '' : ` in ${t.runtimeMs} ms`}`;
    case 'FAILURE':
      return `${name} failed${on}${retried}: ${t.exception ?? 'no exception reported'}`;
    case 'REVOKED':
      return `${name} was revoked${retried}`;
    case 'REJECTED':
      return `${name} was rejected by the worker${on}`;
    case 'RETRY':
      return `${name} is waiting to be retried (${t.retries.length} so far)`;
    case 'STARTED':
      return `${name} is running${on}`;
    case 'RECEIVED':
      return `${name} was received${on} and waits to start`;
    case 'PENDING':
      return `${name} was sent${t.queue ? ` to queue ${t.queue}` : ''} and waits for a worker`;
  }
}
