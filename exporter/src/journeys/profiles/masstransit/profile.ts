// MassTransit 8's activities (ActivitySource "MassTransit"): "<endpoint> receive" is the delivery
// and ends after the ack or nack; the consume, handler and saga activities inside it ("<endpoint>
// process") are its handler, whose error status is the fault that moves the message to
// "<queue>_error" (its error transport publishes on the channel, without a send activity);
// "outbox send" writes to its transactional outbox; a send to "<queue>_error" (or "_skipped"),
// where an app records one, is that move.
import { ATTR, SEMCONV } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
import { SPAN_KIND, text } from '../semconv.js';
import type { ReceivedSpan } from '../span.js';

const REDELIVERED = ATTR.redelivered;

/** Its error and skipped queues: where it moves a faulted or unconsumed message. */
const PARKED = /_(error|skipped)$/;
/** Its own message id, on its send and process activities. */
const MESSAGE_ID = 'messaging.masstransit.message_id';

/** Its consume, handler and saga activities ("<endpoint> process", consumer). */
const isHandler = (span: ReceivedSpan) =>
  span.kind === SPAN_KIND.consumer && span.attributes.get('messaging.operation') === 'process';

/** A send to "<queue>_error" or "<queue>_skipped": the move, with the queue it left. */
const parkedTo = (span: ReceivedSpan): string | null => {
  const dest = text(span.attributes.get(SEMCONV.destination));
  return span.kind === SPAN_KIND.producer && dest !== null && PARKED.test(dest) ? dest : null;
};

export const masstransit: ProfileModule = {
  profile: {
    id: 'masstransit',
    sdk: 'MassTransit 8 (ActivitySource MassTransit)',
    source:
      'MassTransit v8.5.8 src/MassTransit/Logging/Diagnostics (LogContextActivityExtensions.cs, DiagnosticHeaders.cs, StartedActivity.cs), Transports/ReceivePipeDispatcher.cs, RabbitMqTransport/RabbitMqReceiveLockContext.cs',
    settle: 'span-status',
    fix: {
      event_id:
        'MassTransit records its MessageId (messaging.masstransit.message_id, and messaging.message.id on the receive): nothing to add',
      queue: 'the receive activity names its endpoint, the queue (messaging.destination.name)',
      delivery_attempt: `MassTransit records no redelivered flag: in the consumer, Activity.Current?.Parent?.SetTag("${REDELIVERED}", context.ReceiveContext.Redelivered)`,
      settle:
        'the receive activity ends after the ack (status ok) or the nack with requeue (status error): nothing to add',
    },
  },
  wrote: (span) => span.scope.name === 'MassTransit',
  stage(span, semconv) {
    if (span.name === 'outbox send') return 'outbox.insert';
    if (span.name === 'outbox process') return null;
    if (isHandler(span)) return 'deliver';
    if (parkedTo(span) !== null) return 'dead_letter';
    return semconv(span);
  },
  // Its exchanges and queues are named by endpoint: a delivery's destination is its queue.
  where: (where, { deliver, destination, named }) =>
    deliver ? { ...where, exchange: null, queue: named ?? destination } : where,
  eventId: (attributes) => attributes.get(MESSAGE_ID),
  handler: isHandler,
  parked(span, stage) {
    const dest = stage === 'dead_letter' ? text(span.attributes.get(SEMCONV.destination)) : null;
    if (dest === null) return null;
    return {
      reason: dest.endsWith('_error') ? 'fault' : 'skipped',
      queue: dest.replace(PARKED, ''),
    };
  },
};
