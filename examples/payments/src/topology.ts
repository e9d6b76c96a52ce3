// The payments pipeline's RabbitMQ topology: unlike the reference pipeline's, a quorum queue
// with a delivery limit, a classic queue with a dead-letter exchange and one without.
//
//   payments (topic) --payment.captured--> payments.ledger  (quorum, x-delivery-limit, DLX)
//                    --payment.booked----> payments.receipts (classic, DLX)
//                                      \-> payments.audit    (classic, no DLX: a reject drops it)
//   payments.dlx (fanout) --> payments.dead
import type { Channel } from 'amqplib';

export const EXCHANGE = 'payments';
export const CAPTURED = 'payment.captured';
export const BOOKED = 'payment.booked';
export const LEDGER_QUEUE = 'payments.ledger';
export const RECEIPTS_QUEUE = 'payments.receipts';
export const AUDIT_QUEUE = 'payments.audit';
export const DEAD_LETTER_EXCHANGE = 'payments.dlx';
export const DEAD_LETTER_QUEUE = 'payments.dead';

/** Declares everything; idempotent, every role runs it after connecting. */
export async function assertTopology(ch: Channel, deliveryLimit: number): Promise<void> {
  await ch.assertExchange(EXCHANGE, 'topic', { durable: true });
  await ch.assertExchange(DEAD_LETTER_EXCHANGE, 'fanout', { durable: true });
  await ch.assertQueue(DEAD_LETTER_QUEUE, { durable: true });
  await ch.bindQueue(DEAD_LETTER_QUEUE, DEAD_LETTER_EXCHANGE, '');
  await ch.assertQueue(LEDGER_QUEUE, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': deliveryLimit,
      'x-dead-letter-exchange': DEAD_LETTER_EXCHANGE,
    },
  });
  await ch.bindQueue(LEDGER_QUEUE, EXCHANGE, CAPTURED);
  await ch.assertQueue(RECEIPTS_QUEUE, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': DEAD_LETTER_EXCHANGE },
  });
  await ch.bindQueue(RECEIPTS_QUEUE, EXCHANGE, BOOKED);
  await ch.assertQueue(AUDIT_QUEUE, { durable: true });
  await ch.bindQueue(AUDIT_QUEUE, EXCHANGE, BOOKED);
}
