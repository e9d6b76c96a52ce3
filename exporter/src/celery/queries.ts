// Reads of the journey store that only Celery task journeys need: the tasks of a workflow.
import { MAX_STEPS } from '../journeys/store/queries.js';
import type { Reader } from '../journeys/store/reads.js';
import { WORKFLOW } from './steps.js';
import { stateOf, type WorkflowTask } from './task.js';

/** The tasks of a Celery workflow (root task id), in the order they first appear. */
export async function workflowTasks(pool: Reader, rootId: string): Promise<WorkflowTask[]> {
  const res = await pool.query<{
    event_id: string;
    stage: string;
    name: string | null;
    parent_id: string | null;
  }>(
    `SELECT event_id, stage, attrs->>'celery.task.name' AS name,
              attrs->>'celery.parent_id' AS parent_id
         FROM journey_steps
        WHERE aggregate_id = $1 AND aggregate_type = $2
        ORDER BY time LIMIT ${MAX_STEPS}`,
    [rootId, WORKFLOW],
  );
  const tasks = new Map<
    string,
    { name: string | null; parentId: string | null; stages: { stage: string }[] }
  >();
  for (const r of res.rows) {
    const t = tasks.get(r.event_id) ?? { name: null, parentId: null, stages: [] };
    t.name ??= r.name;
    t.parentId ??= r.parent_id;
    t.stages.push({ stage: r.stage });
    tasks.set(r.event_id, t);
  }
  return [...tasks].map(([taskId, t]) => ({
    taskId,
    name: t.name,
    parentId: t.parentId,
    state: stateOf(t.stages),
  }));
}
