import { once } from 'node:events';
import type { ConfirmChannel, Options } from 'amqplib';

/** A confirm that has not come this long after the publish fails it: the row is retried. */
const CONFIRM_TIMEOUT_MS = 30_000;

/** Per channel, one promise that rejects when it closes (one listener, however many publish). */
const closings = new WeakMap<ConfirmChannel, Promise<never>>();
function closingOf(ch: ConfirmChannel): Promise<never> {
  let closing = closings.get(ch);
  if (!closing) {
    closing = new Promise<never>((_, reject) => {
      ch.once('close', () => {
        reject(new Error('the channel closed before the confirm'));
      });
    });
    closing.catch(() => undefined);
    closings.set(ch, closing);
  }
  return closing;
}

/**
 * Publishes on a confirm channel and resolves when the broker confirms; rejects on a nack, when
 * the channel closes before the confirm (a broker restart: amqplib then never calls back, and a
 * relay waiting on it would hold its claimed rows' locks for good), or after CONFIRM_TIMEOUT_MS.
 * Waits for 'drain' first when the channel's write buffer is full.
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
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`no confirm within ${CONFIRM_TIMEOUT_MS / 1000} s`));
    }, CONFIRM_TIMEOUT_MS);
  });
  const lost = Promise.race([closingOf(ch), late]);
  try {
    if (!(await Promise.race([written, lost]))) await Promise.race([once(ch, 'drain'), lost]);
    await Promise.race([confirmed, lost]);
  } finally {
    clearTimeout(timer);
    // The confirm may still come (or fail) after the channel is given up: nobody waits for it.
    confirmed.catch(() => undefined);
    lost.catch(() => undefined);
  }
}
