// The config file's `deadLetters` section (exporter/src/deadletters/, docs/dead-letters.md).
import { z } from 'zod';
import { seconds } from './primitives.js';

/** Parking, triage and replay of dead letters (exporter/src/deadletters/, docs/dead-letters.md). */
export const deadLetters = z.strictObject({
  enabled: z.boolean().default(false),
  /** acktrail's own broker user, in the dead-letter queues' vhost; ACKTRAIL_DEAD_LETTERS_URL overrides it. */
  url: z.url().optional(),
  /** The dead-letter queues to park, with where a replay goes when the message does not say. */
  queues: z
    .array(
      z.strictObject({
        queue: z.string().min(1).max(255),
        replayTo: z
          .strictObject({ exchange: z.string().max(255), routingKey: z.string().max(255) })
          .optional(),
      }),
    )
    .default([]),
  /**
   * Also park every queue in that vhost that is some queue's dead-letter target (its argument or
   * policy) and dead-letters nowhere itself, as the broker's topology says (not by its name).
   */
  allDeadLetterQueues: z.boolean().default(false),
  /** Body and headers past this size are not parked: they are set aside (setAsideQueue), listed as set_aside. */
  maxMessageBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  /**
   * Where a message over maxMessageBytes goes (published with confirms, then acked, so it never
   * stops its queue's parking): this queue, through the direct exchange of the same name bound to
   * it alone, both declared durable by acktrail when missing; its own headers ride in one nested
   * header, so that none routes it elsewhere. null: held unacknowledged in its own queue, as before
   * 0.1 (each takes a prefetch slot for good).
   */
  setAsideQueue: z.string().min(1).max(255).nullable().default('acktrail.dead-letters.set-aside'),
  /** Parked messages, and the audit log, are deleted this many days after they were parked. */
  retentionDays: z.number().int().min(1).max(3650).default(30),
  /** Messages held from each queue at once: with maxMessageBytes, what bounds parking's memory. */
  prefetch: z.number().int().min(1).max(1000).default(100),
  /**
   * Reads of the dead-letter API (`GET /api/dead-letters…`) one token may run at once; 429 with
   * Retry-After beyond. They share the store's read pool with journey lookups.
   */
  maxConcurrentReadsPerToken: z.number().int().min(1).max(100).default(6),
  /**
   * Headers that hold the failure's text, first present wins; then x-death's reason. Spring AMQP
   * writes x-exception-message, MassTransit's error transport MT-Fault-Message.
   */
  reasonHeaders: z
    .array(z.string().min(1).max(255))
    .default(['x-acktrail-dead-letter-reason', 'x-exception-message', 'MT-Fault-Message']),
  replay: z
    .strictObject({
      /** Replays a bulk replay publishes per second. */
      ratePerSecond: z.number().positive().max(10_000).default(20),
      /** A bulk replay stops by itself when more than this share of its replays fail again… */
      stopAfterFailedShare: z.number().min(0).max(1).default(0.5),
      /** …within this many seconds of their replay… */
      windowSeconds: seconds(120),
      /** …once at least this many were replayed. */
      minReplays: z.number().int().min(1).default(10),
      /** Messages in one replay or discard request. */
      maxMessages: z.number().int().min(1).max(100_000).default(10_000),
      /**
       * Where a replay may publish besides a queue's replayTo and the broker's own record
       * (x-death, checked against the topology): exchange and routing-key patterns, `*` matching
       * any run of characters. The default exchange ("") is allowed only when listed here.
       */
      allowedTargets: z
        .array(
          z.strictObject({
            exchange: z.string().max(255),
            routingKey: z.string().max(255).default('*'),
          }),
        )
        .max(1000)
        .default([]),
      /**
       * The work queues whose dead letters may be replayed to where the broker's own record
       * (x-death) says they were published: patterns, `*` matching any run of characters. Such a
       * target must reach that queue and no other. A queue not named here gets no replay target
       * from x-death: an app user may declare a queue that dead-letters here and bind it anywhere.
       */
      sourceQueues: z.array(z.string().min(1).max(255)).max(1000).default([]),
      /** A replayed message's sealed content is deleted this many hours after the confirm. */
      keepContentHours: z
        .number()
        .min(0)
        .max(24 * 3650)
        .default(24),
      /** Bulk replays running at once, across every replica. */
      maxRunningJobs: z.number().int().min(1).max(100).default(2),
    })
    .default({
      ratePerSecond: 20,
      stopAfterFailedShare: 0.5,
      windowSeconds: 120,
      minReplays: 10,
      maxMessages: 10_000,
      allowedTargets: [],
      sourceQueues: [],
      keepContentHours: 24,
      maxRunningJobs: 2,
    }),
});
