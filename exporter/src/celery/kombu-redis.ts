// kombu's Redis transport as Celery workers and clients use it, the parts acktrail must read
// alike: the broker URL (redis://, rediss://, sentinel://…;sentinel://…/db), the channels its
// fanout exchanges publish on, its JSON envelope around a message body, and the Redis keys of a
// queue and its priority lists, read in one pipeline. The transport that uses them is redis.ts.
import { randomUUID } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import type { CelerySettings } from './intake.js';

/** kombu's separator between a queue's name and its priority. */
const PRIORITY_SEP = '\x06\x16';

/** The database number of a redis:// or sentinel:// URL (`/5`), as kombu reads it; 0 when none. */
export function redisDb(url: string): number {
  const db = Number(new URL(url.split(';')[0]!).pathname.slice(1) || '0');
  return Number.isInteger(db) && db >= 0 ? db : 0;
}

/**
 * How ioredis reaches the broker: a redis:// or rediss:// URL as it is; a Sentinel broker as
 * kombu reads `sentinel://[user:password@]host:port;sentinel://host2:port/db` (every sentinel, the
 * first's credentials and database for the master) with the master's name.
 */
export function redisTarget(url: string, masterName: string | undefined): string | RedisOptions {
  if (!url.startsWith('sentinel:')) return url;
  const urls = url.split(';').map((u) => new URL(u));
  const first = urls[0]!;
  return {
    sentinels: urls.map((u) => ({ host: u.hostname, port: Number(u.port || 26379) })),
    name: masterName,
    db: redisDb(url),
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
  };
}

/**
 * The channels of a fanout exchange (no routing key), as kombu publishes to them. Over Sentinel,
 * kombu before 5.4.0 never filled in the database (`/{db}.`, kombu#1986), later ones do (`/0.`):
 * both are read, each message once.
 */
export function fanoutChannels(s: CelerySettings, exchange: string): string[] {
  const { fanoutPrefix, globalKeyprefix } = s.redis;
  const db = redisDb(s.url);
  const prefixes =
    fanoutPrefix === true
      ? s.url.startsWith('sentinel:')
        ? [`/${db}.`, '/{db}.']
        : [`/${db}.`]
      : [fanoutPrefix === false ? '' : fanoutPrefix];
  // kombu prefixes PUBLISH with global_keyprefix: the messages are on the prefixed channel.
  return prefixes.map((prefix) => `${globalKeyprefix}${prefix}${exchange}`);
}

/** The pub/sub patterns Celery's event receiver subscribes to, for these transport options. */
export function eventPatterns(s: CelerySettings): string[] {
  return fanoutChannels(s, s.exchange).map((c) => `${c}${s.redis.fanoutPatterns ? '/*' : ''}`);
}

/** A kombu envelope around a JSON body, as kombu's Redis transport publishes a message. */
export function envelope(body: unknown, exchange: string, routingKey: string): string {
  return JSON.stringify({
    body: Buffer.from(JSON.stringify(body)).toString('base64'),
    'content-encoding': 'utf-8',
    'content-type': 'application/json',
    headers: {},
    properties: {
      body_encoding: 'base64',
      delivery_info: { exchange, routing_key: routingKey },
      delivery_mode: 2,
      delivery_tag: randomUUID(),
      priority: 0,
    },
  });
}

/**
 * The body of one kombu envelope (`{"body": …, "properties": {"body_encoding": "base64",
 * "delivery_tag": …}}`) with its delivery tag, or null when the payload is no envelope.
 */
export function envelopeBody(payload: Buffer): { body: Buffer; tag: string | null } | null {
  let env: unknown;
  try {
    env = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof env !== 'object' || env === null) return null;
  const { body, properties } = env as {
    body?: unknown;
    properties?: { body_encoding?: unknown; delivery_tag?: unknown };
  };
  if (typeof body !== 'string') return null;
  const tag = properties?.delivery_tag;
  return {
    body:
      properties?.body_encoding === 'base64'
        ? Buffer.from(body, 'base64')
        : Buffer.from(body, 'utf8'),
    tag: typeof tag === 'string' ? tag.slice(0, 128) : null,
  };
}

/** The Redis keys of a queue's messages: its list, then one per priority step above 0. */
export function queueKeys(queue: string, prioritySteps: readonly number[]): string[] {
  return prioritySteps.map((p) => (p ? `${queue}${PRIORITY_SEP}${p}` : queue));
}

/** What readQueues found: each queue's length (its priority lists included) and the unacked. */
export interface QueueReading {
  lengths: Map<string, number>;
  unacked: number;
  /** Age of the oldest unacknowledged message (kombu's unacked index), 0 when none. */
  oldestUnackedAgeS: number;
}

/**
 * The queues' lengths (LLEN of each priority list) and kombu's unacked hash and index, in one
 * pipeline; null when the connection gave no answer. Throws when the pipeline fails.
 */
export async function readQueues(
  cmd: Pick<Redis, 'pipeline'>,
  redis: CelerySettings['redis'],
  queues: readonly string[],
): Promise<QueueReading | null> {
  const { prioritySteps, globalKeyprefix: prefix, unackedKey, unackedIndexKey } = redis;
  const pipe = cmd.pipeline();
  for (const q of queues) for (const key of queueKeys(q, prioritySteps)) pipe.llen(prefix + key);
  pipe.hlen(prefix + unackedKey);
  pipe.zrange(prefix + unackedIndexKey, 0, 0, 'WITHSCORES');
  const results = await pipe.exec();
  if (!results) return null;
  const value = (i: number) => (results[i]?.[0] ? null : results[i]?.[1]);
  let i = 0;
  const lengths = new Map<string, number>();
  for (const queue of queues) {
    let length = 0;
    for (let p = 0; p < prioritySteps.length; p++) length += Number(value(i++) ?? 0);
    lengths.set(queue, length);
  }
  const unacked = Number(value(i++) ?? 0);
  const oldest = value(i) as string[] | null;
  const at = oldest?.length === 2 ? Number(oldest[1]) : NaN;
  return {
    lengths,
    unacked,
    oldestUnackedAgeS: Number.isFinite(at) ? Math.max(0, Date.now() / 1000 - at) : 0,
  };
}
