// The three consumers, each on its own queue with manual acks.
// - ledger (payments.ledger, quorum): books the payment once (ON CONFLICT: a redelivery changes
//   nothing), then publishes payment.booked directly (no outbox) with a message id derived from
//   the captured event's, so a redelivery republishes the same message, and acks. A negative
//   amount is a poison message: the ledger nacks it with requeue until the queue's delivery limit
//   dead-letters it.
// - receipts (payments.receipts, classic with a DLX): rejects a currency it cannot print (XXX,
//   ISO 4217's "no currency") without requeue: dead-lettered.
// - audit (payments.audit, classic, no DLX): rejects amounts over its limit without requeue: the
//   message is discarded.
import { createHash } from 'node:crypto';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { decode, encode, type Payment } from './broker.js';
import type { Config } from './config.js';
import { inTransaction, type Pool } from './db.js';
import { messageOf, type Logger } from './log.js';
import { AUDIT_QUEUE, BOOKED, EXCHANGE, LEDGER_QUEUE, RECEIPTS_QUEUE } from './topology.js';

/** A uuid-shaped id that depends only on its inputs (the same event, the same follow-up id). */
export function derivedId(eventId: string, what: string): string {
  const h = createHash('sha256').update(`${eventId}/${what}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const AUDIT_LIMIT_CENTS = 100_000_000;

type Handle = (msg: ConsumeMessage, payment: Payment, ch: Channel) => Promise<void>;

async function consume(conn: ChannelModel, queue: string, log: Logger, handle: Handle) {
  const ch = await conn.createChannel();
  await ch.prefetch(10);
  await ch.consume(queue, (msg) => {
    if (!msg) return;
    const payment = decode(msg.content);
    if (!payment) {
      log.warn({ message_id: msg.properties.messageId as unknown }, 'unreadable message rejected');
      ch.reject(msg, false);
      return;
    }
    handle(msg, payment, ch).catch((err: unknown) => {
      log.warn({ err: messageOf(err), intent_ref: payment.intent_ref }, 'failed; requeued');
      ch.nack(msg, false, true);
    });
  });
  return ch;
}

export async function startLedger(conn: ChannelModel, pool: Pool, config: Config, log: Logger) {
  const publisher: ConfirmChannel = await conn.createConfirmChannel();
  let crashArmed = config.faults.ledgerCrashBeforeAck;
  return consume(conn, LEDGER_QUEUE, log, async (msg, payment, ch) => {
    if (payment.amount_cents < 0) {
      log.warn({ intent_ref: payment.intent_ref }, 'negative amount: the ledger cannot book it');
      ch.nack(msg, false, true);
      return;
    }
    const eventId = String(msg.properties.messageId);
    const booked = await inTransaction(pool, async (c) => {
      const r = await c.query(
        `INSERT INTO ledger_entries (msg_uuid, intent_ref) VALUES ($1, $2)
         ON CONFLICT DO NOTHING`,
        [eventId, payment.intent_ref],
      );
      await c.query(`UPDATE pay_intents SET phase = 'booked' WHERE intent_ref = $1`, [
        payment.intent_ref,
      ]);
      return r.rowCount === 1;
    });
    publisher.publish(EXCHANGE, BOOKED, encode(payment), {
      messageId: derivedId(eventId, BOOKED),
      persistent: true,
      contentType: 'application/json',
    });
    await publisher.waitForConfirms();
    if (crashArmed) {
      crashArmed = false;
      log.error({ intent_ref: payment.intent_ref }, 'fault: exiting before the ack');
      process.exit(1);
    }
    ch.ack(msg);
    log.info({ intent_ref: payment.intent_ref, booked }, booked ? 'booked' : 'already booked');
  });
}

export function startReceipts(conn: ChannelModel, log: Logger) {
  return consume(conn, RECEIPTS_QUEUE, log, (msg, payment, ch) => {
    if (payment.currency === 'XXX') {
      log.warn({ intent_ref: payment.intent_ref }, 'no receipt for currency XXX: rejected');
      ch.reject(msg, false);
    } else ch.ack(msg);
    return Promise.resolve();
  });
}

export function startAudit(conn: ChannelModel, log: Logger) {
  return consume(conn, AUDIT_QUEUE, log, (msg, payment, ch) => {
    if (payment.amount_cents >= AUDIT_LIMIT_CENTS) {
      log.warn({ intent_ref: payment.intent_ref }, 'over the audit limit: rejected');
      ch.reject(msg, false);
    } else ch.ack(msg);
    return Promise.resolve();
  });
}
