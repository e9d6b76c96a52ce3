// The activities MassTransit 8 writes, from its source.
import { HANDLER_FAULT, KIND, type SdkShape } from '../testing/shape.js';

/**
 * MassTransit v8.5.8 (ActivitySource "MassTransit"): Logging/Diagnostics/LogContextActivityExtensions.cs
 * (StartSendActivity: "<entity> send", producer, messaging.operation send, messaging.system and
 * messaging.destination.name from the transport, messaging.masstransit.message_id;
 * StartReceiveActivity: "<endpoint> receive", consumer, messaging.operation receive,
 * messaging.destination.name the endpoint (its queue), messaging.message.id from the transport
 * headers; StartConsumerActivity: "<endpoint> process" inside it, messaging.operation process,
 * messaging.masstransit.message_id), DiagnosticHeaders.cs, StartedActivity.cs (AddExceptionEvent:
 * status error with the exception's message; Stop sets ok unless an error was recorded),
 * Transports/ReceivePipeDispatcher.cs (the receive activity stops after the receive lock
 * completes), RabbitMqReceiveLockContext.cs (Complete acks; Faulted nacks with requeue),
 * RabbitMqErrorTransport.cs and RabbitMqMoveTransport.cs (a fault is moved to "<queue>_error" by a
 * BasicPublishAsync on the channel: no send activity). A consumer that throws: its process
 * activity ends in error, the message is moved to "<queue>_error" and the receive completes: ok.
 */
const massTransit: SdkShape = {
  name: 'masstransit',
  profile: 'masstransit',
  scope: { name: 'MassTransit', version: '8.5.8' },
  source:
    'MassTransit v8.5.8 src/MassTransit/Logging/Diagnostics, Transports/ReceivePipeDispatcher.cs',
  creation: 'parent',
  publish: (m) => ({
    name: `${m.exchange} send`,
    kind: KIND.producer,
    attributes: {
      'messaging.operation': 'send',
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': m.exchange,
      ...(m.messageId ? { 'messaging.masstransit.message_id': m.messageId } : {}),
      'messaging.masstransit.source_address': 'rabbitmq://127.0.0.1/shop_bus_abc',
      'messaging.masstransit.destination_address': `rabbitmq://127.0.0.1/${m.exchange}`,
      'messaging.masstransit.message_types': 'urn:message:Shop:OrderCreated',
    },
  }),
  deliver: (m, settle) => ({
    name: `${m.queue} receive`,
    kind: KIND.consumer,
    attributes: {
      'messaging.operation': 'receive',
      'messaging.destination.name': m.queue,
      'messaging.masstransit.input_address': `rabbitmq://127.0.0.1/${m.queue}`,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
    },
    // A nack with requeue is the receive lock's fault; everything else completes it (an ack).
    status:
      (settle.op === 'nack' || settle.op === 'reject') && settle.requeue
        ? { code: 2, message: 'The consumer faulted' }
        : settle.op === 'none'
          ? undefined
          : { code: 1 },
  }),
  // The error transport publishes the fault on the channel: no span of MassTransit's.
  settleSpan: () => null,
  // The consumer's activity: in error, with the exception's message, where it threw (a fault, or
  // the receive lock's fault that nacks with requeue).
  handler: (m, settle) => ({
    name: `${m.queue} process`,
    kind: KIND.consumer,
    attributes: {
      'messaging.operation': 'process',
      ...(m.messageId ? { 'messaging.masstransit.message_id': m.messageId } : {}),
      'messaging.masstransit.consumer_type': 'OrderCreatedConsumer',
      'messaging.masstransit.message_types': 'urn:message:Shop:OrderCreated',
    },
    status:
      settle.op === 'nack' || settle.op === 'reject'
        ? { code: 2, message: HANDLER_FAULT }
        : settle.op === 'none'
          ? undefined
          : { code: 1 },
  }),
  faultQueue: (queue) => `${queue}_error`,
};

export const SHAPES: readonly SdkShape[] = [massTransit];
