// Dead letters too large to park (over deadLetters.maxMessageBytes) are set aside rather than held:
// copied whole to deadLetters.setAsideQueue, and the broker's confirm makes the original safe to
// ack (broker.ts, parker.ts), so no number of them stops a queue's parking.
//
// The copy goes nowhere else. A dead letter's headers are its producer's words, and RabbitMQ routes
// a publish to every queue its `CC` and `BCC` headers name (sender-selected distribution; on the
// default exchange, any queue by name). So the copy carries a fixed set of headers of acktrail's
// own, with the message's headers kept whole inside one of them (a nested table, which the broker
// never reads for routing), and it is published to an exchange of acktrail's own, named as the
// queue and bound to it alone: acktrail's broker user needs no write on the default exchange.
import { randomUUID } from 'node:crypto';
import type { Channel, ChannelModel, ConsumeMessage, Options } from 'amqplib';
import { UNSENT_PROPERTIES, propertiesOf } from '../model/message.js';

/** The headers of a set-aside copy, and the only ones it has. */
export const SET_ASIDE_HEADERS = {
  /** Its own id (for a return). */
  id: 'x-acktrail-set-aside-id',
  /** The queue it was taken from. */
  from: 'x-acktrail-set-aside-from',
  /** The message's own headers, as a nested table: readable, routing nothing. */
  headers: 'x-acktrail-set-aside-headers',
} as const;

/**
 * Properties the copy does not take: those a replay does not send, and `expiration`, since the
 * copy is kept for an operator and not for as long as its producer asked.
 */
const UNCOPIED_PROPERTIES = [...UNSENT_PROPERTIES, 'expiration'];

/** What setting aside needs of the broker connection: a confirmed, mandatory publish. */
export interface Publisher {
  publish(
    exchange: string,
    routingKey: string,
    content: Buffer,
    options: Options.Publish,
    id: string,
  ): Promise<'confirmed' | 'unroutable' | 'nacked'>;
}

/** Runs one declaration on a channel of its own (a refusal closes its channel): whether it passed. */
async function declared(model: ChannelModel, op: (ch: Channel) => Promise<unknown>) {
  const ch = await model.createChannel();
  ch.on('error', () => undefined);
  try {
    await op(ch);
    return true;
  } catch {
    return false;
  } finally {
    await ch.close().catch(() => undefined);
  }
}

/**
 * The set-aside queue and its exchange (direct, of the same name), each checked and declared
 * durable when missing, and the queue bound to it by its own name. null when off or refused:
 * too-large messages are then held.
 */
export async function declareSetAside(
  model: ChannelModel,
  name: string | null,
  refused: (err: Error) => void,
): Promise<string | null> {
  if (name === null) return null;
  const queue =
    (await declared(model, (ch) => ch.checkQueue(name))) ||
    (await declared(model, (ch) => ch.assertQueue(name, { durable: true })));
  const exchange =
    (await declared(model, (ch) => ch.checkExchange(name))) ||
    (await declared(model, (ch) => ch.assertExchange(name, 'direct', { durable: true })));
  if (!queue || !exchange) {
    refused(
      new Error(
        `cannot declare the queue and exchange ${name} (acktrail's user needs configure on that name)`,
      ),
    );
    return null;
  }
  if (!(await declared(model, (ch) => ch.bindQueue(name, name, name)))) {
    refused(
      new Error(
        `cannot bind the queue ${name} to the exchange of that name (acktrail's user needs write on the queue and read on the exchange)`,
      ),
    );
    return null;
  }
  return name;
}

/**
 * Publishes a copy of the message to the set-aside exchange `target`, with the key that reaches
 * the queue of that name; resolves with `target` once the broker confirmed the copy, rejects when
 * it returned or nacked it.
 */
export async function setAside(
  broker: Publisher,
  target: string,
  from: string,
  msg: ConsumeMessage,
): Promise<string> {
  const id = randomUUID();
  const properties = Object.fromEntries(
    Object.entries(propertiesOf(msg)).filter(([k]) => !UNCOPIED_PROPERTIES.includes(k)),
  );
  const headers = {
    [SET_ASIDE_HEADERS.id]: id,
    [SET_ASIDE_HEADERS.from]: from,
    [SET_ASIDE_HEADERS.headers]: msg.properties.headers ?? {},
  };
  const outcome = await broker.publish(target, target, msg.content, { ...properties, headers }, id);
  if (outcome === 'confirmed') return target;
  throw new Error(`the broker answered ${outcome} to the set-aside copy`);
}
