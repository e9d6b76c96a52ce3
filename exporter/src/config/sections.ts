// The config file's sections (ACKTRAIL_CONFIG, YAML or JSON), as zod schemas: the keys, their
// types and defaults. config.ts validates the file against fileSchema and the environment on top.
import { z } from 'zod';
import { celery } from './celery.js';
import { deadLetters } from './dead-letters.js';
import { journeys } from './journeys.js';
import { lookups } from './lookups.js';
import { seconds } from './primitives.js';
import { docsUrl } from '../docs.js';
import { isLinearRegex } from '../linear-regex.js';

export { celeryBrokerUrl } from './celery.js';
export { ownSecret } from './primitives.js';

const identifier = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/,
    'must be a plain SQL name: column, table or schema.table',
  );
/** Matched against names from the broker: RE2's syntax, run in linear time (linear-regex.ts). */
const regex = z
  .string()
  .refine(
    isLinearRegex,
    'must be a regular expression in RE2 syntax (no back-references or look-around)',
  );
/** A query read page by page (collectors/sql/incremental.ts): it must use all three parameters. */
const incrementalQuery = z
  .string()
  .min(1)
  .refine(
    (q) => [1, 2, 3].every((n) => new RegExp(`\\$${n}(?!\\d)`).test(q)),
    `must use $1 (lower bound, timestamptz), $2 (page size) and $3 (the id after which rows at exactly $1 are read), ordered by (at, id): see ${docsUrl('metrics.md', 'counting-from-tables-without-double-counting')}`,
  );
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
  /**
   * Queue-name patterns to keep (empty: all) and to drop. acktrail's own queues (celery.queue,
   * deadLetters.setAsideQueue) are never in scope: they are not the pipeline's work.
   */
  include: z.array(regex).default([]),
  exclude: z.array(regex).default(['^amq\\.']),
  /** Role overrides, first match wins; otherwise roles come from dead-letter relations and names. */
  roles: z.array(z.strictObject({ match: regex, vhost: z.string().optional(), role })).default([]),
  /**
   * The broker topology (queue arguments, policies, bindings) and the counters are read from the
   * management API this often (less often when a refresh is slow; early when spans name a queue it
   * does not know).
   */
  statsIntervalSeconds: seconds(60),
  /**
   * A work queue's status (acktrail_queue_status) is judged over this much time: STALL when its
   * consumers acked nothing for this long with messages waiting all along.
   */
  statusWindowSeconds: seconds(240),
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

const aggregateCounts = z.strictObject({
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

export const fileSchema = z.strictObject({
  celery: celery.default(celery.parse({})),
  deadLetters: deadLetters.default(deadLetters.parse({})),
  journeys: journeys.default(journeys.parse({})),
  rabbitmq: rabbitmq.default(rabbitmq.parse({})),
  outbox: outbox.optional(),
  confirmations: confirmations.optional(),
  aggregateCounts: aggregateCounts.optional(),
  provider: provider.optional(),
  /**
   * Business-key lookups: what support searches by when it has no id (an e-mail, a payment
   * reference), each a read-only query on the pipeline's database (docs/lookups.md).
   */
  lookups,
  /**
   * Incremental collectors re-read this many seconds behind their watermark, so that a row
   * committed late (its timestamp taken when its transaction began) is still counted, once.
   */
  watermarkLatenessSeconds: z.number().min(0).default(10),
  /** The exporter's memory, whatever the input (runtime/memory.ts, docs/security.md). */
  memory: z
    .strictObject({
      /**
       * Resident memory the exporter keeps under: past it (while its heaps and Buffers hold at
       * least half of it) every input stops taking more (OTLP answers 503 or UNAVAILABLE, bodies
       * being read included; parking and the Celery consumer over AMQP pause) until it is below
       * 90 % of it again, or what they hold below 45 %. Keep it well inside the container's memory
       * limit (the manifest gives 768 Mi).
       */
      budgetBytes: z
        .number()
        .int()
        .min(64 * 1024 * 1024)
        .default(512 * 1024 * 1024),
    })
    .default({ budgetBytes: 512 * 1024 * 1024 }),
});

export type FileConfig = z.output<typeof fileSchema>;
