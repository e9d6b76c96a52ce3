// An AMQP connection that amqplib's recovery makes, and makes again after a broker restart, with
// backoff and without end; `setup` runs on every (re)connect (a failure there makes amqplib close
// and try again later). A broker that is down at start or goes away later is reported down
// (Health, /readyz) under the caller's part, never a reason to restart. The Celery consumer and
// dead-letter parking each keep one.
import amqp, { type ChannelModel } from 'amqplib';
import type { Health } from './runtime/health.js';

export interface Recovering {
  close(): Promise<void>;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

export interface RecoveringOptions {
  url: string;
  part: string;
  health: Health;
  /** What cannot be done while the broker is away: "cannot consume the event stream". */
  purpose: string;
  setup(model: ChannelModel): Promise<void>;
  /** The connection dropped: channels made by setup are gone. */
  onDisconnect(): void;
  /** Whether the owner closed meanwhile: the connection is then closed as soon as it exists. */
  closed(): boolean;
}

/** Starts connecting in the background; resolves with the connection (null if closed meanwhile). */
export async function connectRecovering(o: RecoveringOptions): Promise<Recovering | null> {
  const c = (await amqp.connect(o.url, {
    recovery: {
      initialDelay: 500,
      maxDelay: 30_000,
      initialMaxRetries: Infinity,
      maxRetries: Infinity,
      waitForConnect: false,
      setup: async (model: ChannelModel) => {
        await o.setup(model);
      },
    },
  })) as unknown as Recovering;
  if (o.closed()) {
    await c.close().catch(() => undefined);
    return null;
  }
  c.on('disconnect', (err: Error) => {
    o.onDisconnect();
    o.health.down(o.part, err, 'lost the broker connection; reconnecting');
  });
  c.on('connect-failed', (err: Error) => {
    o.health.down(o.part, err, `${o.purpose}; retrying`);
  });
  c.on('error', (err: Error) => {
    o.health.error(o.part, err, `${o.part}: broker connection error`);
  });
  return c;
}
