// The config file's sections (ACKTRAIL_CONFIG, YAML or JSON), as zod schemas: the keys, their
// types and defaults. config.ts validates the file against fileSchema and the environment on top.
import { z } from 'zod';
import { celery } from './celery.js';
import { seconds } from './primitives.js';

export { celeryBrokerUrl } from './celery.js';

const identifier = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/,
    'must be a plain SQL name: column, table or schema.table',
  );
const regex = z.string().refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');
/** A query read page by page (collectors/incremental.ts): it must use all three parameters. */
const incrementalQuery = z
  .string()
  .min(1)
  .refine(
    (q) => [1, 2, 3].every((n) => new RegExp(`\\$${n}(?!\\d)`).test(q)),
    'must use $1 (lower bound, timestamptz), $2 (page size) and $3 (the id after which rows at exactly $1 are read), ordered by (at, id): see docs/metrics.md',
  );
/** A token or secret copied from the docs' examples is no token: refused with the key's name. */
export const ownSecret = z
  .string()
  .min(16, 'must be at least 16 characters (for example: openssl rand -hex 24)')
  .refine((v) => !/change-?me/i.test(v), 'is an example value from the docs; choose your own');

const word = z
  .string()
  .regex(/^[a-z][a-z -]{0,39}$/, 'must be lower-case words, at most 40 letters');
/** Values of `acktrail.result`, as the pipeline writes them. */
const resultWords = z.array(z.string().min(1).max(64)).max(20).default([]);
const buckets = (def: number[]) => z.array(z.number().positive()).min(1).default(def);
const role = z.enum(['work', 'retry', 'dead_letter']);

const rabbitmq = z.strictObject({
  enabled: z.boolean().default(true),
  /** Where depths and consumers come from; `auto` uses the broker's /metrics/detailed when it answers. */
  source: z.enum(['auto', 'prometheus', 'management']).default('auto'),
  /** rabbitmq_prometheus endpoint; default: the management URL's host, port 15692. */
  prometheusUrl: z.url().optional(),
  /**
   * The broker's nodes, each read for the queues it leads (the broker's metrics are node-local).
   * `discover` (the default): the nodes the management API lists, each at its own
   * rabbitmq_prometheus listener (a single node is read at prometheusUrl). Or the nodes'
   * Prometheus endpoints, listed: `[{url, name?, management?}]` (name: the node's name, e.g.
   * rabbit@host, otherwise the name the node reports; management: its management listener, tried
   * with RABBITMQ_MANAGEMENT_URL's credentials when that URL's node does not answer).
   */
  nodes: z
    .union([
      z.literal('discover'),
      z
        .array(
          z.strictObject({
            url: z.url(),
            name: z.string().min(1).max(255).optional(),
            management: z.url().optional(),
          }),
        )
        .min(1),
    ])
    .default('discover'),
  /**
   * In a cluster, a queue that no node reports for a while (its leader moving to another node)
   * keeps its last values this long before its series go, so that alerts do not reset.
   */
  holdSeconds: z.number().min(0).default(30),
  /** Only these vhosts; empty: all. */
  vhosts: z.array(z.string()).default([]),
  /** Queue-name patterns to keep (empty: all) and to drop. */
  include: z.array(regex).default([]),
  exclude: z.array(regex).default(['^amq\\.']),
  /** Role overrides, first match wins; otherwise roles come from dead-letter relations and names. */
  roles: z.array(z.strictObject({ match: regex, vhost: z.string().optional(), role })).default([]),
  /** Counters and queue arguments come from the management API at most this often. */
  statsIntervalSeconds: seconds(60),
  timeoutSeconds: seconds(5),
});

// The pipeline's tables. Each section is optional: absent, its collector does not run and its
// facts are not read into journeys. Names are the pipeline's own; nothing defaults to the
// reference pipeline's (examples/orders/acktrail.yaml names those).

const outbox = z.strictObject({
  tables: z
    .array(
      z.strictObject({
        table: identifier,
        /** The event id. */
        id: identifier,
        createdAt: identifier,
        publishedAt: identifier,
        /** Shown in journeys and used to list an aggregate's events; optional. */
        aggregateId: identifier.optional(),
        eventType: identifier.optional(),
        /** The relay's last publish error, where it keeps one. */
        lastError: identifier.optional(),
      }),
    )
    .min(1),
  timeoutSeconds: seconds(2),
});

const confirmations = z.strictObject({
  /** The aggregate's own rows: created when the event is, waiting for a result. */
  aggregates: z.strictObject({
    table: identifier,
    id: identifier,
    createdAt: identifier,
    /** A status column, for the pending age and acktrail_aggregates; optional. */
    status: identifier.optional(),
    /** The status value of an aggregate still waiting for its result; needed with status. */
    pendingValue: z.string().min(1).optional(),
    /** A status value that means the work failed for good (its journey reads dead-lettered). */
    failedValue: z.string().optional(),
  }),
  /** The result rows: one per aggregate when its event's work is done. */
  results: z.strictObject({
    table: identifier,
    eventId: identifier,
    aggregateId: identifier,
    createdAt: identifier,
  }),
  /** Where each event's type is (id, type) for the event_type label; absent: "unknown". */
  eventTypes: z.strictObject({ table: identifier, id: identifier, type: identifier }).optional(),
  /**
   * Replaces the generated latency query. $1 = lower bound (timestamptz), $2 = page size, $3 =
   * the id after which rows at exactly $1 are read; returns id text, at timestamptz (the
   * result's time), latency_seconds float8, event_type text, ordered by (at, id).
   */
  latencyQuery: incrementalQuery.optional(),
  /** Replaces the generated pending query; returns one row with oldest_age_seconds float8. */
  pendingQuery: z.string().min(1).optional(),
  buckets: buckets([0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800]),
  timeoutSeconds: seconds(2),
});

const notifications = z.strictObject({
  /** Counting every aggregate is a full scan: at most this often, in the background. */
  minIntervalSeconds: seconds(60),
  /**
   * Replaces the generated query (confirmations.aggregates' status, counted); returns status
   * text, count int8 per row.
   */
  query: z.string().min(1).optional(),
  timeoutSeconds: seconds(30),
});

const provider = z.strictObject({
  table: identifier,
  id: identifier,
  /** The event an attempt belongs to, for journeys; optional. */
  eventId: identifier.optional(),
  provider: identifier,
  outcome: identifier,
  /** The HTTP status of an attempt, shown in journeys; optional. */
  statusCode: identifier.optional(),
  /** An interval column, or seconds as a number. */
  duration: identifier,
  createdAt: identifier,
  /**
   * Replaces the generated query. $1, $2, $3 as for confirmations.latencyQuery; returns id text,
   * at timestamptz, provider text, outcome text, duration_seconds float8, ordered by (at, id).
   */
  query: incrementalQuery.optional(),
  /** Providers beyond this many distinct names are reported as "other". */
  maxProviders: z.number().int().positive().default(20),
  buckets: buckets([0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  timeoutSeconds: seconds(2),
});

const journeys = z.strictObject({
  /** Receive OTLP spans on /v1/traces and serve the journey API; needs a journey store. */
  enabled: z.boolean().default(true),
  /** Whole days of steps kept; older daily partitions are dropped. */
  retentionDays: z.number().int().min(1).max(3650).default(14),
  /** Largest OTLP request body accepted, after gzip inflation (413 beyond). */
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /**
   * Bytes of OTLP bodies (after inflation) read or worked on at once, over all requests, charged
   * as they arrive (never by the declared length): past it the receiver answers 503 with
   * Retry-After and discards the rest of the body. With maxPendingSteps it is what bounds the
   * exporter's memory under a flood (docs/security.md).
   */
  maxInflightBytes: z
    .number()
    .int()
    .min(1024)
    .default(32 * 1024 * 1024),
  /**
   * A request body that sends nothing for this long is dropped and its budget freed: an idle
   * connection never holds the in-flight budget from the SDKs that send.
   */
  bodyIdleTimeoutSeconds: z.number().positive().max(300).default(10),
  /**
   * OTLP bodies this large or larger (after inflation) are decoded in worker threads, off the
   * event loop that answers /metrics and /healthz; smaller ones where they arrive.
   */
  decodeOffThreadBytes: z
    .number()
    .int()
    .min(0)
    .default(256 * 1024),
  /** Spans in one OTLP request (413 beyond); SDKs send 512 by default. */
  maxSpansPerRequest: z.number().int().min(1).default(10_000),
  /** Steps waiting for the store at once; a write past it is refused (503, or a Celery retry). */
  maxPendingSteps: z.number().int().min(100).default(100_000),
  /**
   * With a token, /v1/traces needs `Authorization: Bearer <token>`: what SDKs send with
   * OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <token>". ACKTRAIL_INGEST_TOKEN overrides it.
   */
  ingestToken: ownSecret.nullable().default(null),
  /**
   * Connections of the pool the API's reads (lookups, lists, Celery workflows, queue heads) use
   * on the primary: a pool of their own, so that reads never take ingest's, parking's or
   * replay's connections.
   */
  readPoolSize: z.number().int().min(1).max(100).default(4),
  /**
   * Event lists (`GET /api/events`) one token may run at once; 429 with Retry-After beyond. The
   * dashboard reads with one token for every viewer: its overview alone runs three at once.
   */
  maxConcurrentListsPerToken: z.number().int().min(1).max(100).default(6),
  /** Every statement of the store's pools (writes, API reads) ends after this long. */
  statementTimeoutSeconds: seconds(30),
  /** A statement waits at most this long for a lock (partition changes, concurrent writes). */
  lockTimeoutSeconds: seconds(5),
  /** Reads leave a read replica (ACKTRAIL_DATABASE_READ_URL) that lags further behind than this. */
  maxReadLagSeconds: seconds(30),
  /** An outbox row unpublished for this long makes its journey "stuck in the outbox". */
  stuckAfterSeconds: seconds(60),
  /** A delivery with no settle step after this long makes its journey "never acked". */
  unackedAfterSeconds: seconds(300),
  /** The pipeline's own words in verdicts and on the dashboard. */
  words: z
    .strictObject({
      /** Its aggregate: "order", "payment", "shipment". `/orders/{id}` answers whatever it is. */
      aggregate: word.default('aggregate'),
      /** What is done once an event's work is: "confirmation sent", "payment captured". */
      done: word.default('processed'),
      /**
       * What the consumer's `acktrail.result` values mean, where it records one. `done`: the
       * delivery did the work (empty: every ack not listed under another meaning did);
       * `alreadyDone`: it found the work done before and only acked (a duplicate);
       * `stale`: it skipped an event older than what it had processed.
       */
      results: z
        .strictObject({
          done: resultWords,
          alreadyDone: resultWords,
          stale: resultWords,
        })
        .default({ done: [], alreadyDone: [], stale: [] }),
    })
    .default({
      aggregate: 'aggregate',
      done: 'processed',
      results: { done: [], alreadyDone: [], stale: [] },
    }),
});

/** Parking, triage and replay of dead letters (exporter/src/deadletters/, docs/dead-letters.md). */
const deadLetters = z.strictObject({
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
  /** Body and headers past this size stay in the dead-letter queue, listed as too large. */
  maxMessageBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  /** Parked messages, and the audit log, are deleted this many days after they were parked. */
  retentionDays: z.number().int().min(1).max(3650).default(30),
  /** Messages held from each queue at once: with maxMessageBytes, what bounds parking's memory. */
  prefetch: z.number().int().min(1).max(1000).default(100),
  /** Headers that hold the failure's text, first present wins; then x-death's reason. */
  reasonHeaders: z
    .array(z.string().min(1).max(255))
    .default(['x-acktrail-dead-letter-reason', 'x-exception-message']),
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
      keepContentHours: 24,
      maxRunningJobs: 2,
    }),
});

export const fileSchema = z.strictObject({
  celery: celery.default(celery.parse({})),
  deadLetters: deadLetters.default(deadLetters.parse({})),
  journeys: journeys.default(journeys.parse({})),
  rabbitmq: rabbitmq.default(rabbitmq.parse({})),
  outbox: outbox.optional(),
  confirmations: confirmations.optional(),
  notifications: notifications.optional(),
  provider: provider.optional(),
  /**
   * Incremental collectors re-read this many seconds behind their watermark, so that a row
   * committed late (its timestamp taken when its transaction began) is still counted, once.
   */
  watermarkLatenessSeconds: z.number().min(0).default(10),
});

export type FileConfig = z.output<typeof fileSchema>;
