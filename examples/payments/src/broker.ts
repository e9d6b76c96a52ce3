// One broker connection per role, with the topology declared. A lost connection ends the process
// (its supervisor restarts it): this example keeps to what any amqplib service does.
import amqp, { type ChannelModel } from 'amqplib';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { assertTopology } from './topology.js';

export async function connect(config: Config, log: Logger): Promise<ChannelModel> {
  const conn = await amqp.connect(config.rabbitmqUrl);
  const setup = await conn.createChannel();
  await assertTopology(setup, config.ledgerDeliveryLimit);
  await setup.close();
  conn.on('close', (err?: Error) => {
    if (err) {
      log.error({ err: err.message }, 'lost the RabbitMQ connection');
      process.exit(1);
    }
  });
  return conn;
}

export interface Payment {
  intent_ref: string;
  amount_cents: number;
  currency: string;
}

export const encode = (p: Payment): Buffer => Buffer.from(JSON.stringify(p));

export function decode(content: Buffer): Payment | null {
  try {
    const v = JSON.parse(content.toString()) as Partial<Payment>;
    return typeof v.intent_ref === 'string' &&
      Number.isInteger(v.amount_cents) &&
      typeof v.currency === 'string'
      ? (v as Payment)
      : null;
  } catch {
    return null;
  }
}
