// The demo's settings: which pipelines run (--pipeline), where the databases and the broker are,
// the ports, and its secrets: from the environment, else the ones it made before (kept beside its
// data in .demo/secrets.json, so that a restart still opens what it parked), else new ones.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export const PIPELINES = ['orders', 'payments', 'both'] as const;
export const { values: args } = parseArgs({
  options: { pipeline: { type: 'string', default: 'orders' } },
});
export const pipeline = args.pipeline as (typeof PIPELINES)[number];
if (!PIPELINES.includes(pipeline)) {
  console.error(`demo: --pipeline must be one of ${PIPELINES.join(', ')}, not ${args.pipeline}`);
  process.exit(2);
}
export const withOrders = pipeline !== 'payments';
export const withPayments = pipeline !== 'orders';

export const env = process.env;
export const ADMIN_URL =
  env.DEMO_ADMIN_DATABASE_URL ?? 'postgres://acktrail:acktrail@127.0.0.1:5432/postgres';
export const DB_NAME = 'acktrail_demo';
export const DATABASE_URL =
  env.DATABASE_URL ?? `postgres://acktrail:acktrail@127.0.0.1:5432/${DB_NAME}`;
export const STORE_NAME = 'acktrail_journeys';
export const STORE_URL =
  env.ACKTRAIL_DATABASE_URL ?? `postgres://acktrail:acktrail@127.0.0.1:5432/${STORE_NAME}`;
export const SECRETS_FILE = '.demo/secrets.json';
export const kept = ((): Record<string, string> => {
  try {
    return JSON.parse(readFileSync(SECRETS_FILE, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
})();
const made: Record<string, string> = {};
const secret = (name: string, fresh: () => string): string => {
  const value = env[name] ?? kept[name] ?? fresh();
  if (env[name] === undefined) made[name] = value;
  return value;
};
const hex = (n: number) => () => randomBytes(n).toString('hex');
// The journey API's token, the dashboard's sign-in secret.
export const API_TOKEN = secret('ACKTRAIL_API_TOKEN', hex(24));
export const DASHBOARD_SECRET = secret('DASHBOARD_SECRET', hex(12));
// Dead-letter parking: who may replay (API and dashboard), and the key that seals parked bodies.
export const OPERATOR_TOKEN = secret('ACKTRAIL_OPERATOR_TOKEN', hex(24));
export const DASHBOARD_OPERATOR_SECRET = secret('DASHBOARD_OPERATOR_SECRET', hex(12));
export const DEAD_LETTER_KEY = secret('ACKTRAIL_DEAD_LETTER_KEY', () =>
  randomBytes(32).toString('base64'),
);
// The mail provider's admin routes (settings, stats).
export const PROVIDER_ADMIN_TOKEN = secret('PROVIDER_ADMIN_TOKEN', hex(16));
mkdirSync('.demo', { recursive: true });
writeFileSync(SECRETS_FILE, `${JSON.stringify({ ...kept, ...made }, null, 2)}\n`, { mode: 0o600 });
export const RABBITMQ_URL = env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
export const API_PORT = env.ORDERS_API_PORT ?? '8080';
export const PAYMENTS_API_PORT = env.PAYMENTS_API_PORT ?? '8180';
export const PROVIDER_PORT = env.PROVIDER_PORT ?? '8090';
export const RATE = env.DEMO_RATE ?? '5';
export const EXPORTER_PORT = env.ACKTRAIL_PORT ?? '9470';
export const PROMETHEUS_PORT = env.DEMO_PROMETHEUS_PORT ?? '9090';
export const DASHBOARD_PORT = env.DEMO_DASHBOARD_PORT ?? '3000';
// The exporter reads the pipeline's database as this read-only role (docs/metrics.md).
export const READER = { user: 'acktrail_reader', password: 'acktrail_reader' };

/** Where a secret came from, as the demo prints it. */
export const secretSource = (name: string) =>
  env[name] !== undefined
    ? ` (from ${name})`
    : kept[name] !== undefined
      ? ` (kept in ${SECRETS_FILE})`
      : ` (new, kept in ${SECRETS_FILE}; set ${name} to choose one)`;
