// The one place that reads the environment. The OTEL_* variables are read by the stock
// OpenTelemetry SDK itself (tracing.ts), as in any service.
import { z } from 'zod';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .default('')
  .transform((v) => v === '1' || v === 'true');

const schema = z.object({
  DATABASE_URL: z.url().default('postgres://acktrail:acktrail@127.0.0.1:5432/payments'),
  RABBITMQ_URL: z.url().default('amqp://guest:guest@127.0.0.1:5672'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LISTEN_HOST: z.union([z.ipv4(), z.ipv6(), z.literal('localhost')]).default('127.0.0.1'),
  PAYMENTS_API_PORT: int(8180),
  RELAY_POLL_INTERVAL_MS: int(200, 1),
  /** Deliveries of one message to the ledger before the broker dead-letters it (quorum queue). */
  LEDGER_DELIVERY_LIMIT: int(3, 1),
  /** The demo's load generator: intents per second, against this API. */
  LOADGEN_RATE: z.coerce.number().positive().default(5),
  LOADGEN_API_URL: z.url().default('http://127.0.0.1:8180'),
  /** Fault: the ledger exits after booking a payment and before acking it (once). */
  FAULT_LEDGER_CRASH_BEFORE_ACK: flag,
});

export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success)
    throw new ConfigError(
      `invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const e = parsed.data;
  return {
    databaseUrl: e.DATABASE_URL,
    rabbitmqUrl: e.RABBITMQ_URL,
    logLevel: e.LOG_LEVEL,
    listenHost: e.LISTEN_HOST,
    apiPort: e.PAYMENTS_API_PORT,
    relayPollIntervalMs: e.RELAY_POLL_INTERVAL_MS,
    ledgerDeliveryLimit: e.LEDGER_DELIVERY_LIMIT,
    loadgen: { rate: e.LOADGEN_RATE, apiUrl: e.LOADGEN_API_URL },
    faults: { ledgerCrashBeforeAck: e.FAULT_LEDGER_CRASH_BEFORE_ACK },
  };
}
