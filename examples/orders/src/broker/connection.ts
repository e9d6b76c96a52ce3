// A broker connection that comes back by itself after a broker restart (amqplib's recovery).
// `setup` runs after every (re)connect and recreates the channels the caller needs.
import amqp, { type ChannelModel } from 'amqplib';
import { coerceError, type Logger } from '../log.js';

export type RecoveringConnection = Awaited<ReturnType<typeof connectWithRecovery>>;

export async function connectWithRecovery(
  url: string,
  log: Logger,
  setup: (model: ChannelModel) => Promise<void>,
  onDisconnect: () => void = () => undefined,
) {
  const conn = await amqp.connect(url, {
    recovery: {
      initialDelay: 200,
      maxDelay: 5000,
      initialMaxRetries: 20,
      waitForConnect: false,
      setup: async (model: ChannelModel) => {
        await setup(model);
      },
    },
  });
  conn.on('connect', () => {
    log.info('connected to RabbitMQ');
  });
  conn.on('disconnect', (err: Error) => {
    onDisconnect();
    log.warn({ err: err.message }, 'lost the RabbitMQ connection; reconnecting');
  });
  conn.on('connect-failed', (err: Error) => {
    log.warn({ err: err.message }, 'RabbitMQ connection attempt failed');
  });
  conn.on('error', (err: unknown) => {
    log.warn({ err: coerceError(err).message }, 'RabbitMQ connection error');
  });
  await conn.waitForConnect();
  return conn;
}
