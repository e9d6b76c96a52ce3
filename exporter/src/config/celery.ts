// The config file's `celery` section (exporter/src/celery/, docs/metrics.md "Celery"): the broker
// (RabbitMQ or Redis, as Celery names it), the event stream's bounds, and kombu's Redis options.
import { z } from 'zod';
import { seconds } from './primitives.js';

/** kombu's Redis transport options, as Celery's broker_transport_options set them. */
const celeryRedis = z.strictObject({
  /** Celery restores a reserved, unacknowledged message to its queue after this long. */
  visibilityTimeoutSeconds: z.number().positive().default(3600),
  /** Priority lists read beside each queue's own (`<queue>\x06\x16<n>`); 0 is the queue. */
  prioritySteps: z.array(z.number().int().min(0).max(255)).min(1).max(256).default([0, 3, 6, 9]),
  /** `true`: `/<db>.` before the event channel's name; `false`: none; or the prefix itself. */
  fanoutPrefix: z.union([z.boolean(), z.string().max(255)]).default(true),
  /** Routing keys in channel names (`celeryev/task.multi`): subscribe with a pattern. */
  fanoutPatterns: z.boolean().default(true),
  /** kombu's global_keyprefix, before every key acktrail reads. */
  globalKeyprefix: z.string().max(255).default(''),
  unackedKey: z.string().min(1).max(255).default('unacked'),
  unackedIndexKey: z.string().min(1).max(255).default('unacked_index'),
  /** One replica subscribes at a time, holding a lease of this length in Redis. */
  leaseSeconds: z.number().min(1).max(300).default(15),
  /** The lease's key: in a Redis shared with others, a name only acktrail's user may write (an ACL key pattern). */
  leaseKey: z.string().min(1).max(255).default('acktrail.celery.subscriber'),
  /** Sentinel brokers (sentinel://): the master's name, kombu's master_name. */
  masterName: z.string().min(1).max(255).optional(),
});

const BROKER_SCHEMES = ['amqp:', 'amqps:', 'redis:', 'rediss:', 'sentinel:'];
/**
 * A Celery broker's URL, of a transport acktrail reads (CELERY_BROKER_URL too); several sentinels
 * are `;`-separated URLs, as Celery writes them.
 */
export const celeryBrokerUrl = z.string().refine(
  (u) => {
    const parts = u.split(';');
    return parts.every(
      (p) =>
        URL.canParse(p) &&
        BROKER_SCHEMES.includes(new URL(p).protocol) &&
        (parts.length === 1 || new URL(p).protocol === 'sentinel:'),
    );
  },
  { error: `a Celery broker URL: ${BROKER_SCHEMES.map((s) => `${s}//`).join(', ')}` },
);

/** Celery's event stream (exporter/src/celery/, docs/metrics.md "Celery"); off unless enabled. */
export const celery = z.strictObject({
  enabled: z.boolean().default(false),
  /**
   * The Celery broker: amqp:// or amqps:// (its vhost), redis:// or rediss:// (its database,
   * `/5`), or sentinel://host:26379;sentinel://host2:26379/5 with celery.redis.masterName, as
   * Celery writes them; CELERY_BROKER_URL overrides it.
   */
  url: celeryBrokerUrl.default('amqp://guest:guest@127.0.0.1:5672'),
  /** Redis brokers only: kombu's transport options as the workers have them. */
  redis: celeryRedis.default(celeryRedis.parse({})),
  exchange: z.string().min(1).default('celeryev'),
  /** acktrail's own queue on that exchange (expires after an hour unused). */
  queue: z.string().min(1).default('acktrail.celery.events'),
  prefetch: z.number().int().min(1).max(65535).default(2000),
  /** Ask the workers to send events (as `celery control enable_events`) this often; 0: never. */
  enableEventsIntervalSeconds: z.number().min(0).default(0),
  /** A worker offline or silent for this long loses its `worker` label. */
  workerExpirySeconds: seconds(600),
  /** Distinct task names and queues kept as labels; more become "other" (counted). */
  maxTaskNames: z.number().int().min(1).default(200),
  maxQueues: z.number().int().min(1).default(50),
  /** Distinct (task, queue) series; past it a new pair is counted under task and queue "other". */
  maxTaskQueuePairs: z.number().int().min(1).default(1000),
  /** Workers tracked (and labelled) at once; more are counted, not tracked, until some expire. */
  maxWorkers: z.number().int().min(1).default(500),
  /** Larger event messages are set aside unread (skipped, reason too_large). */
  maxMessageBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /**
   * acktrail's event queue holds at most this many bytes (x-max-length-bytes; the oldest events
   * go first), so a stalled acktrail can never push the broker into a memory alarm.
   */
  queueMaxBytes: z
    .number()
    .int()
    .min(1024 * 1024)
    .default(128 * 1024 * 1024),
  /** Queues whose length is reported from the start; the tasks' own queues are added as seen. */
  queues: z.array(z.string().min(1)).default(['celery']),
});
