// The journey API's answers (docs/api.md): a journey as assembled from spans, or a Celery task's,
// with the ordering findings of its aggregate, what the id matched and its parked dead letters.
import type { CeleryTask } from '../journeys/model/celery-task.js';
import type { ReadJourney } from '../journeys/service.js';

export type Journey = ReadJourney<CeleryTask>;
