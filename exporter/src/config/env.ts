// The exporter's environment: addresses, secrets and switches (docs/configuration.md is generated
// from this schema and its comments). config.ts is its one reader.
import { z } from 'zod';
import { celeryBrokerUrl } from './celery.js';
import { ownSecret } from './primitives.js';

/** The environment the exporter reads (docs/configuration.md is generated from it). */
export const envSchema = z.object({
  /** The exporter's HTTP port: /metrics, the probes, the API and OTLP/HTTP (unless split below); every port set must differ from the others. */
  ACKTRAIL_PORT: z.coerce.number().int().min(0).max(65535).default(9470),
  /** Unset: /metrics on ACKTRAIL_PORT. Set: /metrics (and the probes) on this port only. */
  ACKTRAIL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Unset: POST /v1/traces on ACKTRAIL_PORT. Set: OTLP/HTTP (and the probes) on this port only, read with OTLP/gRPC on a thread of their own, off the event loop that answers the probes, /metrics and the API. */
  ACKTRAIL_INGEST_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** OTLP/gRPC (4317 by convention); unset: off. */
  ACKTRAIL_OTLP_GRPC_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Loopback unless set (the images set 0.0.0.0): listening on other interfaces is a choice (docs/security.md). */
  ACKTRAIL_LISTEN_HOST: z
    .string()
    .regex(/^[0-9A-Za-z.:-]{1,253}$/, 'must be a host name or an IP address')
    .default('127.0.0.1'),
  /** With a token, POST /v1/traces and OTLP/gRPC need `Bearer <token>`. */
  ACKTRAIL_INGEST_TOKEN: ownSecret.optional(),
  /** With a token, /metrics and /status need `Bearer <token>` (a ServiceMonitor's `authorization`, Prometheus' `authorization.credentials_file`); /healthz and /readyz stay open. It must differ from the other tokens. */
  ACKTRAIL_METRICS_TOKEN: ownSecret.optional(),
  /** Set by npm itself (`npm exec`, `npx`, `npm run`), never by hand: the exporter then also stops, draining, when the shell npm started it in exits (a SIGTERM to npx or npm ends that shell, not the exporter). */
  npm_command: z.string().optional(),
  /** On SIGTERM, in-flight requests get this long to finish before the exporter exits. */
  ACKTRAIL_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(25),
  /** An idle HTTP connection is kept this long (its answers advertise it) and closed 10 s later: longer than the idle timeout of a proxy in front (ingress-nginx and AWS ALB: 60 s), which otherwise reuses a connection the exporter has just closed. */
  ACKTRAIL_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(65),
  /** The configuration file (YAML or JSON): docs/configuration.md. */
  ACKTRAIL_CONFIG: z.string().min(1).optional(),
  /** The pipeline's database, read with a read-only role (outbox, confirmations, provider). */
  DATABASE_URL: z.url().optional(),
  /** The journey store (read-write): steps and dead letters. Default: DATABASE_URL; without either, journeys are off. */
  ACKTRAIL_DATABASE_URL: z.url().optional(),
  /** A streaming replica of the journey store, for the API's reads (docs/scaling.md). */
  ACKTRAIL_DATABASE_READ_URL: z.url().optional(),
  /** The store reached directly, for migrations and partition drops (needed behind a pooler). */
  ACKTRAIL_DATABASE_MIGRATE_URL: z.url().optional(),
  /** `transaction`: the databases are reached through PgBouncer's transaction pooling. */
  ACKTRAIL_DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
  /** The token that reads the journey API (`Authorization: Bearer`); no token: the API refuses all. */
  ACKTRAIL_API_TOKEN: ownSecret.optional(),
  /** The token that may also act: replay and discard dead letters, and read their bodies; it must differ from the API and ingest tokens. */
  ACKTRAIL_OPERATOR_TOKEN: ownSecret.optional(),
  /** 32 bytes, base64 or hex: seals parked dead letters (AES-256-GCM). */
  ACKTRAIL_DEAD_LETTER_KEY: z.string().optional(),
  /** Earlier dead-letter keys, comma-separated: read only, until `acktrail dead-letters reseal`. */
  ACKTRAIL_DEAD_LETTER_KEYS: z.string().optional(),
  /** acktrail's own broker user for parking and replay (overrides deadLetters.url). */
  ACKTRAIL_DEAD_LETTERS_URL: z.url().optional(),
  /** The RabbitMQ management API, with the monitoring user's credentials. */
  RABBITMQ_MANAGEMENT_URL: z.url().default('http://guest:guest@127.0.0.1:15672'),
  /** The Celery broker (overrides celery.url), as Celery's broker_url. */
  CELERY_BROKER_URL: celeryBrokerUrl.optional(),
  /** `on`: the exporter starts itself again, once, with the V8 and allocator settings it is measured with (docs/metrics.md, "Running"); `off`: it runs as it was started. */
  ACKTRAIL_RUNTIME_FLAGS: z.enum(['on', 'off']).default('on'),
  /** `on`: V8's helper threads, the decoding workers and the ingest thread run 10 nice steps below the event loop (Linux; docs/operations.md); `off`: at the process's priority. */
  ACKTRAIL_LOWER_THREADS: z.enum(['on', 'off']).default('on'),
  /** `on`: a refused OTLP/HTTP body of a declared length is thrown away by Node's HTTP parser, none of it reaching JavaScript (docs/operations.md); `off`: it is read and dropped as 'data' events. */
  ACKTRAIL_PARSER_DISCARD: z.enum(['on', 'off']).default('on'),
  /** pino's level for the exporter's JSON log lines on stdout. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
