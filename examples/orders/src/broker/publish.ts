import { once } from 'node:events';
import type { ConfirmChannel, Options } from 'amqplib';

/**
 * Publishes on a confirm channel and resolves when the broker confirms (rejects on a nack or a
 * closed channel). Waits for 'drain' first when the channel's write buffer is full.
 */
export async function publishConfirmed(
  ch: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Options.Publish,
): Promise<void> {
  let confirmed!: Promise<void>;
  const written = new Promise<boolean>((resolveWrite) => {
    confirmed = new Promise<void>((resolve, reject) => {
      resolveWrite(
        ch.publish(exchange, routingKey, content, options, (err: unknown) => {
          if (err) reject(err instanceof Error ? err : new Error('nacked by the broker'));
          else resolve();
        }),
      );
    });
  });
  if (!(await written)) await once(ch, 'drain');
  return confirmed;
}
