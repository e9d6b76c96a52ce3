// The RabbitMQ .NET client 7's activities (RabbitMQActivitySource): exchange and routing key, no
// queue; the deliver activity ends when the handler returns and records no settle.
import { ATTR, SEMCONV } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
import { exchangeName } from '../semconv.js';
const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

const SCOPES = new Set(['RabbitMQ.Client.Publisher', 'RabbitMQ.Client.Subscriber']);

export const dotnetClient: ProfileModule = {
  profile: {
    id: 'dotnet-client',
    sdk: 'RabbitMQ .NET client 7 (RabbitMQActivitySource)',
    source:
      'rabbitmq-dotnet-client v7.2.2 projects/RabbitMQ.Client/Impl/RabbitMQActivitySource.cs, ConsumerDispatching/AsyncConsumerDispatcher.cs',
    settle: 'none',
    fix: {
      event_id:
        'set MessageId on the published properties (new BasicProperties { MessageId = eventId }): the client records it as messaging.message.id on publish and deliver',
      queue: `the client records the exchange and routing key, not the queue; acktrail infers it where the bindings route to one queue. To name it: Activity.Current?.SetTag("${ATTR.queue}", queueName) in HandleBasicDeliverAsync`,
      delivery_attempt: `in HandleBasicDeliverAsync: Activity.Current?.SetTag("${REDELIVERED}", redelivered)`,
      settle: `the deliver activity ends when the handler returns and records no ack: Activity.Current?.SetTag("${SETTLE_ATTR}", "ack") before BasicAckAsync ("reject", "nack" or "nack_requeue" before BasicRejectAsync or BasicNackAsync)`,
    },
  },
  wrote: (span) => SCOPES.has(span.scope.name),
  // BasicGet that found the queue empty: no message, no journey.
  stage: (span, semconv) =>
    span.attributes.get(SEMCONV.operationName) === 'fetch (empty)' ? null : semconv(span),
  where: (where, { destination }) => ({ ...where, exchange: exchangeName(destination) }),
};
