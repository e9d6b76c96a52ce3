// Names and declarations of the reference pipeline's RabbitMQ topology.
import type { Channel } from 'amqplib';

export const EXCHANGE = 'orders.events';
export const ROUTING_KEY = 'order.created';
export const WORK_QUEUE = 'orders.confirmations';
export const DEAD_LETTER_EXCHANGE = 'orders.dlx';
export const DEAD_LETTER_QUEUE = 'orders.confirmations.dlq';
/** One retry queue per attempt, so per-message TTLs of similar length never block each other. */
export const retryQueue = (attempt: number): string => `${WORK_QUEUE}.retry.${attempt}`;

/** Headers the pipeline sets on its messages. */
export const HEADERS = {
  attempt: 'x-acktrail-attempt',
  deadLetterReason: 'x-acktrail-dead-letter-reason',
  aggregateType: 'x-acktrail-aggregate-type',
  aggregateId: 'x-acktrail-aggregate-id',
  /** Where a message the worker dead-letters itself was published (Spring AMQP's names): a
   * replay from the dead-letter queue goes back there. */
  originalExchange: 'x-original-exchange',
  originalRoutingKey: 'x-original-routingKey',
  /** Set by acktrail on a replayed dead letter (epoch ms): a new round of attempts. */
  replayedAt: 'x-acktrail-replayed-at',
} as const;

/** Declares everything; idempotent, so every process runs it after each (re)connect. */
export async function assertTopology(ch: Channel, maxAttempts: number): Promise<void> {
  await ch.assertExchange(EXCHANGE, 'topic', { durable: true });
  await ch.assertExchange(DEAD_LETTER_EXCHANGE, 'fanout', { durable: true });
  await ch.assertQueue(WORK_QUEUE, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': DEAD_LETTER_EXCHANGE },
  });
  await ch.bindQueue(WORK_QUEUE, EXCHANGE, ROUTING_KEY);
  await ch.assertQueue(DEAD_LETTER_QUEUE, { durable: true });
  await ch.bindQueue(DEAD_LETTER_QUEUE, DEAD_LETTER_EXCHANGE, '');
  // Attempt n (1-based) failing transiently waits in retry queue n, which dead-letters the
  // message back to the work queue when its per-message TTL expires.
  for (let attempt = 1; attempt < maxAttempts; attempt++) {
    await ch.assertQueue(retryQueue(attempt), {
      durable: true,
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': WORK_QUEUE },
    });
  }
}
