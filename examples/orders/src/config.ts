// The one place that reads the environment. Everything else receives a validated Config.
import { z } from 'zod';

const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .default('')
  .transform((v) => v === '1' || v === 'true');
const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const ratio = z.coerce.number().min(0).max(1).default(0);
const list = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

const schema = z.object({
  DATABASE_URL: z.url().default('postgres://acktrail:acktrail@127.0.0.1:5432/orders'),
  RABBITMQ_URL: z.url().default('amqp://guest:guest@127.0.0.1:5672'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  /** Address the HTTP roles (api, provider) listen on: 0.0.0.0 in a container. */
  LISTEN_HOST: z.union([z.ipv4(), z.ipv6(), z.literal('localhost')]).default('127.0.0.1'),
  ORDERS_API_PORT: int(8080),
  PROVIDER_PORT: int(8090),
  PROVIDER_URL: z.url().default('http://127.0.0.1:8090'),
  PROVIDER_NAME: z.string().min(1).default('mailer'),

  RELAY_BATCH_SIZE: int(100, 1),
  RELAY_POLL_INTERVAL_MS: int(200, 1),
  RELAY_RETRY_AFTER_MS: int(5000, 0),

  WORKER_PREFETCH: int(16, 1),
  WORKER_MAX_ATTEMPTS: int(5, 1),
  WORKER_PROVIDER_TIMEOUT_MS: int(5000, 1),
  RETRY_BASE_DELAY_MS: int(5000, 0),
  RETRY_MAX_DELAY_MS: int(60000, 0),
  /** Multiplies every retry delay; tests use 0.01 so that 5 s becomes 50 ms. */
  RETRY_DELAY_SCALE: z.coerce.number().min(0).default(1),

  PROVIDER_LATENCY_MS: int(20),
  PROVIDER_FAILURE_RATE: ratio,
  PROVIDER_TIMEOUT_RATE: ratio,
  PROVIDER_HANG_MS: int(30000),
  /** Addresses the provider rejects for good; `*` matches any run of characters. */
  PROVIDER_REJECT_ADDRESSES: list,
  /** Bearer token of the provider's /admin routes; unset: they answer 401 to everyone. */
  PROVIDER_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),

  /** OTLP/HTTP base URL (e.g. the acktrail exporter, http://127.0.0.1:9470); unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** How often each process exports its buffered spans. */
  OTEL_BSP_SCHEDULE_DELAY: int(1000, 1),
  /** Spans for every SQL query and HTTP call too (they carry the event id from baggage). */
  TRACE_PG_AND_HTTP: z
    .enum(['0', '1', 'true', 'false'])
    .default('true')
    .transform((v) => v === '1' || v === 'true'),

  /** Failure 2: exit after the broker confirmed a batch, before published_at is written. */
  FAULT_RELAY_EXIT_AFTER_CONFIRM: flag,
  /** Failure 5: publish with this routing key instead of order.created. */
  FAULT_RELAY_ROUTING_KEY: z.string().default(''),
  /** Failure 3: exit after the result is committed, before the ack. */
  FAULT_WORKER_EXIT_AFTER_COMMIT: flag,
  /** Failure 4: exit after the provider answered, before the attempt is recorded. */
  FAULT_WORKER_EXIT_AFTER_PROVIDER_CALL: flag,
});

export type Env = z.input<typeof schema>;

export interface Config {
  databaseUrl: string;
  rabbitmqUrl: string;
  logLevel: z.output<typeof schema>['LOG_LEVEL'];
  listenHost: string;
  api: { port: number };
  relay: { batchSize: number; pollIntervalMs: number; retryAfterMs: number };
  worker: {
    prefetch: number;
    maxAttempts: number;
    providerTimeoutMs: number;
    retry: { baseDelayMs: number; maxDelayMs: number; scale: number };
  };
  provider: {
    port: number;
    url: string;
    name: string;
    latencyMs: number;
    failureRate: number;
    timeoutRate: number;
    hangMs: number;
    rejectAddresses: string[];
    adminToken: string | null;
  };
  tracing: { endpoint: string | null; exportIntervalMs: number; pgAndHttp: boolean };
  faults: {
    relayExitAfterConfirm: boolean;
    relayRoutingKey: string | null;
    workerExitAfterCommit: boolean;
    workerExitAfterProviderCall: boolean;
  };
}

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
}

/** Validates the environment; throws ConfigError naming every bad key. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(schema.shape).flatMap((k) => (env[k] === undefined ? [] : [[k, env[k]]])),
  );
  const parsed = schema.safeParse(known);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    databaseUrl: e.DATABASE_URL,
    rabbitmqUrl: e.RABBITMQ_URL,
    logLevel: e.LOG_LEVEL,
    listenHost: e.LISTEN_HOST,
    api: { port: e.ORDERS_API_PORT },
    relay: {
      batchSize: e.RELAY_BATCH_SIZE,
      pollIntervalMs: e.RELAY_POLL_INTERVAL_MS,
      retryAfterMs: e.RELAY_RETRY_AFTER_MS,
    },
    worker: {
      prefetch: e.WORKER_PREFETCH,
      maxAttempts: e.WORKER_MAX_ATTEMPTS,
      providerTimeoutMs: e.WORKER_PROVIDER_TIMEOUT_MS,
      retry: {
        baseDelayMs: e.RETRY_BASE_DELAY_MS,
        maxDelayMs: e.RETRY_MAX_DELAY_MS,
        scale: e.RETRY_DELAY_SCALE,
      },
    },
    provider: {
      port: e.PROVIDER_PORT,
      url: e.PROVIDER_URL,
      name: e.PROVIDER_NAME,
      latencyMs: e.PROVIDER_LATENCY_MS,
      failureRate: e.PROVIDER_FAILURE_RATE,
      timeoutRate: e.PROVIDER_TIMEOUT_RATE,
      hangMs: e.PROVIDER_HANG_MS,
      rejectAddresses: e.PROVIDER_REJECT_ADDRESSES,
      adminToken: e.PROVIDER_ADMIN_TOKEN ?? null,
    },
    tracing: {
      endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
      exportIntervalMs: e.OTEL_BSP_SCHEDULE_DELAY,
      pgAndHttp: e.TRACE_PG_AND_HTTP,
    },
    faults: {
      relayExitAfterConfirm: e.FAULT_RELAY_EXIT_AFTER_CONFIRM,
      relayRoutingKey: e.FAULT_RELAY_ROUTING_KEY || null,
      workerExitAfterCommit: e.FAULT_WORKER_EXIT_AFTER_COMMIT,
      workerExitAfterProviderCall: e.FAULT_WORKER_EXIT_AFTER_PROVIDER_CALL,
    },
  };
}
