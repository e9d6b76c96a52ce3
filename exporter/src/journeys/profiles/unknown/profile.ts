// An instrumentation acktrail has no profile of: read by the conventions alone, nothing assumed.
import { ATTR } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

export const unknown: ProfileModule = {
  profile: {
    id: 'unknown',
    sdk: 'an instrumentation acktrail has no profile of',
    source: 'OpenTelemetry messaging semantic conventions (old and v1.43 names)',
    settle: 'none',
    fix: {
      event_id: `record the message id (messaging.message.id) or ${ATTR.eventId} on the publish and consumer spans`,
      queue: `name the queue on the consumer span: ${ATTR.queue}`,
      delivery_attempt: `record the broker's redelivered flag on the consumer span: ${REDELIVERED}`,
      settle: `record how the consumer settled: ${SETTLE_ATTR} (ack, nack, nack_requeue, reject) on the consumer span, or a settle span (messaging.operation.type settle)`,
    },
  },
  wrote: () => true,
};
