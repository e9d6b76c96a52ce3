// Dead letters too large to park (over deadLetters.maxMessageBytes) are set aside rather than held:
// copied whole, with their properties (but user-id, which the broker checks against acktrail's own
// user) and headers, to deadLetters.setAsideQueue, with the queue they came from in a header. The
// broker's confirm makes the original safe to ack (broker.ts, parker.ts), so no number of them
// stops a queue's parking.
import { randomUUID } from 'node:crypto';
import type { ChannelModel, ConsumeMessage, Options } from 'amqplib';
import { UNSENT_PROPERTIES, propertiesOf } from '../model/message.js';

/** Headers of a set-aside copy: its own id (for a return), and the queue it was taken from. */
export const SET_ASIDE_HEADERS = {
  id: 'x-acktrail-set-aside-id',
  from: 'x-acktrail-set-aside-from',
} as const;

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

/**
 * The set-aside queue, checked and declared durable when missing, each on a channel of its own (a
 * refusal closes its channel). null when off or refused: too-large messages are then held.
 */
export async function declareSetAside(
  model: ChannelModel,
  queue: string | null,
  refused: (err: Error) => void,
): Promise<string | null> {
  if (queue === null) return null;
  const attempt = async (declare: boolean) => {
    const ch = await model.createChannel();
    ch.on('error', () => undefined);
    try {
      await (declare ? ch.assertQueue(queue, { durable: true }) : ch.checkQueue(queue));
      return true;
    } catch {
      return false;
    } finally {
      await ch.close().catch(() => undefined);
    }
  };
  if ((await attempt(false)) || (await attempt(true))) return queue;
  refused(new Error(`cannot declare ${queue} (acktrail's user needs configure on it)`));
  return null;
}

/**
 * Publishes the message to `target` (the default exchange); resolves with `target` once the broker
 * confirmed the copy, rejects when it returned or nacked it.
 */
export async function setAside(
  broker: Publisher,
  target: string,
  from: string,
  msg: ConsumeMessage,
): Promise<string> {
  const id = randomUUID();
  const properties = Object.fromEntries(
    Object.entries(propertiesOf(msg)).filter(([k]) => !UNSENT_PROPERTIES.includes(k)),
  );
  const headers = {
    ...(msg.properties.headers ?? {}),
    [SET_ASIDE_HEADERS.id]: id,
    [SET_ASIDE_HEADERS.from]: from,
  };
  const outcome = await broker.publish('', target, msg.content, { ...properties, headers }, id);
  if (outcome === 'confirmed') return target;
  throw new Error(`the broker answered ${outcome} to the set-aside copy`);
}
