// acktrail's own instrumentation (@acktrail/instrument): its spans name their stage, queue
// and settle outcome in acktrail's attributes; every settle is a span of its own.
import { ATTR } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';

export const acktrail: ProfileModule = {
  profile: {
    id: 'acktrail',
    sdk: '@acktrail/instrument',
    source: 'instrument/src (this repository)',
    settle: 'settle-spans',
    fix: {
      event_id: `pass the event id as messageId when publishing, or set the baggage entry ${ATTR.eventId}`,
      queue: 'consume through the instrumented channel: it names the queue',
      delivery_attempt: 'consume through the instrumented channel: it records the redelivered flag',
      settle:
        'settle on the delivering channel: acktrail writes a settle span for each ack, nack or reject',
    },
  },
  wrote: (span) => span.attributes.has(ATTR.stage),
  where: (where, { deliver, processName }) =>
    deliver && where.queue === null ? { ...where, queue: processName } : where,
};
