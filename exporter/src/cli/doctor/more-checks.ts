// `acktrail doctor`, continued: Celery's broker (AMQP or Redis) and its event exchange,
// dead-letter parking's broker user and queues, and the ports acktrail serve will listen on.
import { createServer } from 'node:net';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import type { ValidatedConfig } from '../../config.js';
import { envelopeBody, eventPatterns, redisTarget } from '../../celery/kombu-redis.js';
import { eventLimits, parseBody } from '../../celery/events.js';
import { TIMEOUT_MS, bad, failed, ok, where, type Finding } from './finding.js';
import { socketProblem } from './explain.js';

/** How long the doctor listens for Celery's events on Redis: past a worker's 2 s heartbeat. */
const EVENTS_MS = Math.min(TIMEOUT_MS, 4000);

async function amqpConnect(url: string) {
  const conn = await amqp.connect(url, { timeout: TIMEOUT_MS });
  conn.on('error', () => undefined); // a connection the broker ends fails the call that waits
  return conn;
}

/** Whether an exchange or queue exists, each on a channel of its own (a miss closes it). */
async function exists(conn: amqp.ChannelModel, kind: 'exchange' | 'queue', name: string) {
  const ch = await conn.createChannel();
  ch.on('error', () => undefined);
  try {
    if (kind === 'exchange') await ch.checkExchange(name);
    else await ch.checkQueue(name);
    return true;
  } catch {
    return false;
  } finally {
    await ch.close().catch(() => undefined);
  }
}

/** The hosts of a broker URL (kombu's `;`-separated list), never its credentials. */
export const hosts = (url: string) => url.split(';').map(where).join(', ');

/** Celery's broker: reachable; on RabbitMQ, whether workers have declared the event exchange. */
export async function celery(config: ValidatedConfig): Promise<Finding[]> {
  const c = config.celery;
  if (!c.enabled) return [];
  const scheme = new URL(c.url.split(';')[0]!).protocol;
  const source = `Celery broker ${hosts(c.url)}`;
  if (scheme === 'redis:' || scheme === 'rediss:' || scheme === 'sentinel:') {
    const target = redisTarget(c.url, c.redis.masterName);
    // No retries of any kind, every wait bounded: by default ioredis retries sentinels for ever
    // (sentinelRetryStrategy) and waits on a sentinel's answer or a command without a bound.
    const options = {
      lazyConnect: true,
      connectTimeout: TIMEOUT_MS,
      commandTimeout: TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      sentinelRetryStrategy: () => null,
      sentinelCommandTimeout: TIMEOUT_MS,
    };
    const redis =
      typeof target === 'string'
        ? new Redis(target, options)
        : new Redis({ ...target, ...options });
    // Without retries ioredis rejects with "Connection is closed."; the socket's own error (a
    // refused port, an unknown host, a TLS failure) says what happened.
    let cause: unknown = null;
    redis.on('error', (err) => {
      cause ??= err;
    });
    try {
      await redis.connect();
      await redis.ping();
      return [await celeryEvents(redis, config, source)];
    } catch (err) {
      const words = socketProblem(cause, hosts(c.url), hosts(c.url).replace(/:\d+$/, ''));
      return failed(source, words ?? cause ?? err, 'correct celery.url (or CELERY_BROKER_URL)');
    } finally {
      redis.disconnect();
    }
  }
  try {
    const conn = await amqpConnect(c.url);
    try {
      if (await exists(conn, 'exchange', c.exchange))
        return [ok(source, `exchange ${c.exchange} exists`)];
      return [
        bad(
          'warn',
          source,
          `no exchange ${c.exchange}: no worker has sent events yet`,
          'start the workers with -E, or set celery.enableEventsIntervalSeconds',
        ),
      ];
    } finally {
      await conn.close().catch(() => undefined);
    }
  } catch (err) {
    return failed(source, err, 'correct celery.url (or CELERY_BROKER_URL)');
  }
}

/**
 * Whether Celery's events reach the channels serve will read: subscribed (as serve subscribes)
 * for EVENTS_MS, longer than a worker's heartbeat (2 s), the first event's channel and type. None:
 * the workers send no events (-E), or publish them on other channels (another database, or other
 * fanout_prefix, fanout_patterns or global_keyprefix transport options than celery.redis says).
 */
async function celeryEvents(redis: Redis, config: ValidatedConfig, source: string) {
  const patterns = eventPatterns(config.celery);
  const sub = redis.duplicate();
  sub.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const first = new Promise<{ channel: string; type: string } | null>((resolve) => {
      const seen = (channel: Buffer, payload: Buffer) => {
        // Read as serve reads it: a live event, within a day of now.
        const body = envelopeBody(payload)?.body ?? Buffer.alloc(0);
        const limits = eventLimits(config.celery.maxMessageBytes, 1);
        const event = parseBody(body, limits)[0];
        resolve({
          channel: channel.toString('utf8'),
          type:
            !event || event.kind === 'skipped'
              ? `unreadable: ${event?.reason ?? 'empty'}`
              : event.type,
        });
      };
      sub.on('pmessageBuffer', (_p: Buffer, channel: Buffer, payload: Buffer) => {
        seen(channel, payload);
      });
      sub.on('messageBuffer', seen);
      timer = setTimeout(() => {
        resolve(null);
      }, EVENTS_MS);
    });
    if (config.celery.redis.fanoutPatterns) await sub.psubscribe(...patterns);
    else await sub.subscribe(...patterns);
    const event = await first;
    if (event)
      return ok(source, `Redis answers; Celery events arrive on ${event.channel} (${event.type})`);
    return bad(
      'warn',
      source,
      `Redis answers, but no Celery event on ${patterns.join(', ')} within ${EVENTS_MS / 1000} s`,
      "start the workers with -E (or set celery.enableEventsIntervalSeconds); if they send events, match celery.url's database and celery.redis (fanoutPrefix, fanoutPatterns, globalKeyprefix) to the workers' broker_transport_options",
    );
  } finally {
    clearTimeout(timer);
    sub.disconnect();
  }
}

/** Parking's own broker user, and every queue it is told to park. */
export async function deadLetters(config: ValidatedConfig): Promise<Finding[]> {
  const d = config.deadLetters;
  if (!d.enabled || !d.url) return [];
  const source = `dead-letter parking ${where(d.url)}`;
  let conn: amqp.ChannelModel;
  try {
    conn = await amqpConnect(d.url);
  } catch (err) {
    return failed(
      source,
      err,
      "correct deadLetters.url (or ACKTRAIL_DEAD_LETTERS_URL): acktrail's own broker user",
    );
  }
  try {
    const missing: string[] = [];
    for (const q of d.queues) if (!(await exists(conn, 'queue', q.queue))) missing.push(q.queue);
    if (missing.length)
      return [
        bad(
          'fail',
          source,
          `no queue ${missing.join(', ')} (or no permission to see it)`,
          'correct deadLetters.queues, or give the user configure/read permissions on them',
        ),
      ];
    return [
      ok(
        source,
        d.queues.length
          ? `${d.queues.length} queues to park`
          : 'the dead-letter queues come from policies',
      ),
    ];
  } finally {
    await conn.close().catch(() => undefined);
  }
}

/** Whether a port can be listened on; if not, whether acktrail already answers there. */
async function port(host: string, portNumber: number, name: string): Promise<Finding> {
  const source = `${name} ${host}:${portNumber}`;
  const free = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen(portNumber, host, () => {
      server.close(() => {
        resolve(null);
      });
    });
  });
  if (!free) return ok(source, 'free');
  if (free.code !== 'EADDRINUSE')
    return bad('fail', source, free.message, `choose another host or port for ${name}`);
  try {
    const res = await fetch(
      `http://${host.includes(':') ? `[${host}]` : host}:${portNumber}/healthz`,
      {
        signal: AbortSignal.timeout(TIMEOUT_MS),
      },
    );
    if (res.ok) return ok(source, 'in use: an acktrail answers /healthz there');
  } catch {
    // not HTTP, or not answering: another program
  }
  return bad('fail', source, 'in use by another program', `stop it, or set ${name} to a free port`);
}

/** Every port acktrail serve will listen on. */
export function listeners(config: ValidatedConfig): Promise<Finding[]> {
  const ports: [string, number | null][] = [
    ['ACKTRAIL_PORT', config.port],
    ['ACKTRAIL_METRICS_PORT', config.metricsPort],
    ['ACKTRAIL_INGEST_PORT', config.ingestPort],
    ['ACKTRAIL_OTLP_GRPC_PORT', config.otlpGrpcPort],
  ];
  return Promise.all(
    ports
      .filter((p): p is [string, number] => p[1] !== null && p[1] !== 0)
      .map(([name, n]) => port(config.listenHost, n, name)),
  );
}
