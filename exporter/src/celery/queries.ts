// Reads of the journey store that only Celery task journeys need: the tasks of a workflow.
import { aggregateSteps } from '../journeys/store/index.js';
import type { Reader } from '../journeys/store/index.js';
import { WORKFLOW } from './steps.js';
import { stateOf, type WorkflowTask } from '../journeys/model/celery-task.js';

/** The tasks of a Celery workflow (root task id), in the order they first appear. */
export async function workflowTasks(pool: Reader, rootId: string): Promise<WorkflowTask[]> {
  const steps = await aggregateSteps(pool, WORKFLOW, rootId);
  const tasks = new Map<
    string,
    { name: string | null; parentId: string | null; stages: { stage: string }[] }
  >();
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  for (const r of steps) {
    const t = tasks.get(r.eventId) ?? { name: null, parentId: null, stages: [] };
    t.name ??= str(r.attrs['celery.task.name']);
    t.parentId ??= str(r.attrs['celery.parent_id']);
    t.stages.push({ stage: r.stage });
    tasks.set(r.eventId, t);
  }
  return [...tasks].map(([taskId, t]) => ({
    taskId,
    name: t.name,
    parentId: t.parentId,
    state: stateOf(t.stages),
  }));
}
