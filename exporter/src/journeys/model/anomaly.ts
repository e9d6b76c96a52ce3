// A step's own anomaly, decided when it is stored: what one span says without the rest of its
// journey (listing them is an index scan, GET /api/events?anomaly=). A settle's comes from its
// fate (fate.ts); a return past a quorum queue's delivery limit is decided once the returns
// before it are counted (applyDeliveryLimits).
import { ATTR, type AttributeValue } from '@acktrail/conventions';
import type { QueueLookup } from '../../broker/topology.js';
import type { Stage, StepAnomaly } from './steps.js';
import { anomalyOfFate, rejectFate } from './fate.js';
import { outcomeOf } from './settle.js';

export function stepAnomaly(
  stage: Stage,
  attrs: Readonly<Record<string, AttributeValue>>,
  queues: QueueLookup,
): StepAnomaly | null {
  switch (stage) {
    case 'settle': {
      const outcome = outcomeOf(attrs);
      const queue = attrs[ATTR.queue];
      const decision =
        outcome && rejectFate(outcome, typeof queue === 'string' ? queues(queue) : null, null);
      return decision ? anomalyOfFate(decision.fate) : null;
    }
    case 'dead_letter':
      return 'dead_lettered';
    case 'outbox.publish':
    case 'publish':
      return attrs[ATTR.publishOutcome] === 'unroutable' ? 'unroutable' : null;
    case 'deliver': {
      // Delivered out of a dead-letter queue (its role, from the broker's topology): it was
      // dead-lettered, whatever settled it before.
      const queue = attrs[ATTR.queue];
      if (typeof queue === 'string' && queues(queue)?.role === 'dead_letter')
        return 'dead_lettered';
      if (attrs[ATTR.redelivered] === true) return 'redelivered';
      return Number(attrs[ATTR.attempt] ?? 1) > 1 ? 'retried' : null;
    }
    case 'provider.call':
      return attrs[ATTR.providerOutcome] === 'idempotent_replay' ? 'duplicate_provider_call' : null;
    default:
      return null;
  }
}
