// The journey API's answers (docs/api.md): a journey as assembled from spans, or a Celery task's,
// with the ordering findings of its aggregate.
import type { CeleryTask } from '../celery/task.js';
import type { Journey as SpanJourney } from '../journeys/assemble/assemble.js';
import type { OrderingFinding } from '../journeys/model/index.js';

export interface Journey extends SpanJourney {
  /** A Celery task's journey (its steps come from Celery's events); null for other events. */
  celery: CeleryTask | null;
  /** Departures from the aggregate's version order that concern this event. */
  ordering: OrderingFinding[];
}
