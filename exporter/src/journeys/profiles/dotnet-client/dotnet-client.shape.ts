// The activities the RabbitMQ .NET client 7 writes, from its source.
import { KIND, type SdkShape } from '../testing/shape.js';

/**
 * rabbitmq-dotnet-client v7.2.2 projects/RabbitMQ.Client/Impl/RabbitMQActivitySource.cs (sources
 * RabbitMQ.Client.Publisher and .Subscriber; UseRoutingKeyAsOperationName and
 * UsePublisherAsParent both true by default: "publish <key>", "deliver <key>", the creation
 * context as parent and as link), ConsumerDispatching/AsyncConsumerDispatcher.cs (the deliver
 * activity ends when HandleBasicDeliverAsync returns; its status is never set).
 */
const dotnet: SdkShape = {
  name: 'dotnet-client',
  profile: 'dotnet-client',
  scope: { name: 'RabbitMQ.Client.Subscriber', version: '7.2.2' },
  // The publisher's activities carry the Publisher source; the subscriber's, the Subscriber.
  publishScope: { name: 'RabbitMQ.Client.Publisher', version: '7.2.2' },
  source: 'rabbitmq-dotnet-client v7.2.2 RabbitMQActivitySource.cs, AsyncConsumerDispatcher.cs',
  creation: 'parent+link',
  publish: (m) => ({
    name: `publish ${m.routingKey}`,
    kind: KIND.producer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'network.protocol.name': 'amqp',
      'network.protocol.version': '0.9.1',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.destination.name': m.exchange === '' ? 'amq.default' : m.exchange,
      'messaging.rabbitmq.destination.routing_key': m.routingKey,
      'messaging.message.body.size': m.bodySize,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
      'server.address': '127.0.0.1',
      'server.port': 5672,
    },
  }),
  deliver: (m) => ({
    name: `deliver ${m.routingKey}`,
    kind: KIND.consumer,
    attributes: {
      'messaging.system': 'rabbitmq',
      'network.protocol.name': 'amqp',
      'network.protocol.version': '0.9.1',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'deliver',
      'messaging.destination.name': m.exchange === '' ? 'amq.default' : m.exchange,
      'messaging.rabbitmq.destination.routing_key': m.routingKey,
      'messaging.message.body.size': m.bodySize,
      'messaging.rabbitmq.delivery_tag': m.deliveryTag,
      ...(m.messageId ? { 'messaging.message.id': m.messageId } : {}),
    },
  }),
  settleSpan: () => null,
};

export const SHAPES: readonly SdkShape[] = [dotnet];
