// Celery's part of the read path: where a journey's steps are a task's events, the task's journey
// (journeys/assemble/celery.ts) with the tasks of its workflow. server.ts hands it to the one
// JourneyService, so the API knows nothing of Celery.
import type { JourneyServiceOptions } from '../journeys/service.js';
import { assembleCeleryTask } from '../journeys/assemble/celery.js';
import { isCeleryStep, type CeleryTask } from '../journeys/model/celery-task.js';
import type { Reader } from '../journeys/store/index.js';
import { workflowTasks } from './queries.js';

export function celeryJourneys(reads: Reader): JourneyServiceOptions<CeleryTask>['celery'] {
  return async (root, steps) => {
    if (!steps.some(isCeleryStep)) return null;
    const rootId = steps.find((s) => s.aggregateId)?.aggregateId ?? null;
    const workflow = rootId ? await workflowTasks(reads, rootId) : [];
    return assembleCeleryTask(root, steps, workflow);
  };
}
