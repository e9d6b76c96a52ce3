// `npm run demo [-- --pipeline orders|payments|both]`: a pipeline under a steady load with some
// failures mixed in, traced into the exporter's journey store, with Prometheus and the dashboard.
// orders (the default): the reference pipeline, @acktrail/instrument (5 % provider 503s, 2 %
// orders to an address the provider rejects). payments: examples/payments, stock OpenTelemetry
// only (poison messages, rejects into a DLX and discards). both: the two side by side, in one
// database, one exporter (the orders pipeline's settings plus the payments outbox table).
// Prints what runs where and the tokens; Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { migrate } from '@acktrail/orders-example';
import { migrate as migratePayments } from '@acktrail/payments-example';

const PIPELINES = ['orders', 'payments', 'both'] as const;
const { values: args } = parseArgs({
  options: { pipeline: { type: 'string', default: 'orders' } },
});
const pipeline = args.pipeline as (typeof PIPELINES)[number];
if (!PIPELINES.includes(pipeline)) {
  console.error(`demo: --pipeline must be one of ${PIPELINES.join(', ')}, not ${args.pipeline}`);
  process.exit(2);
}
const withOrders = pipeline !== 'payments';
const withPayments = pipeline !== 'orders';

const env = process.env;
const ADMIN_URL =
  env.DEMO_ADMIN_DATABASE_URL ?? 'postgres://acktrail:acktrail@127.0.0.1:5432/postgres';
const DB_NAME = 'acktrail_demo';
const DATABASE_URL = env.DATABASE_URL ?? `postgres://acktrail:acktrail@127.0.0.1:5432/${DB_NAME}`;
const STORE_NAME = 'acktrail_journeys';
const STORE_URL =
  env.ACKTRAIL_DATABASE_URL ?? `postgres://acktrail:acktrail@127.0.0.1:5432/${STORE_NAME}`;
// The demo's secrets: from the environment, else the ones it made before (kept beside its data in
// .demo/secrets.json, so that a restart still opens what it parked), else new ones.
const SECRETS_FILE = '.demo/secrets.json';
const kept = ((): Record<string, string> => {
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
const API_TOKEN = secret('ACKTRAIL_API_TOKEN', hex(24));
const DASHBOARD_SECRET = secret('DASHBOARD_SECRET', hex(12));
// Dead-letter parking: who may replay (API and dashboard), and the key that seals parked bodies.
const OPERATOR_TOKEN = secret('ACKTRAIL_OPERATOR_TOKEN', hex(24));
const DASHBOARD_OPERATOR_SECRET = secret('DASHBOARD_OPERATOR_SECRET', hex(12));
const DEAD_LETTER_KEY = secret('ACKTRAIL_DEAD_LETTER_KEY', () =>
  randomBytes(32).toString('base64'),
);
// The mail provider's admin routes (settings, stats).
const PROVIDER_ADMIN_TOKEN = secret('PROVIDER_ADMIN_TOKEN', hex(16));
mkdirSync('.demo', { recursive: true });
writeFileSync(SECRETS_FILE, `${JSON.stringify({ ...kept, ...made }, null, 2)}\n`, { mode: 0o600 });
const RABBITMQ_URL = env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const API_PORT = env.ORDERS_API_PORT ?? '8080';
const PAYMENTS_API_PORT = env.PAYMENTS_API_PORT ?? '8180';
const PROVIDER_PORT = env.PROVIDER_PORT ?? '8090';
const RATE = env.DEMO_RATE ?? '5';
const EXPORTER_PORT = env.ACKTRAIL_PORT ?? '9470';
const PROMETHEUS_PORT = env.DEMO_PROMETHEUS_PORT ?? '9090';
const DASHBOARD_PORT = env.DEMO_DASHBOARD_PORT ?? '3000';
// The exporter reads the pipeline's database as this read-only role (docs/metrics.md).
const READER = { user: 'acktrail_reader', password: 'acktrail_reader' };

interface Service {
  name: string;
  /** Defaults to node (with tsx for .ts entry points). */
  command?: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  where: string;
}

const orders = (role: string, ...args: string[]) => [
  '--import',
  'tsx',
  'examples/orders/src/main.ts',
  role,
  ...args,
];

const common = {
  DATABASE_URL,
  RABBITMQ_URL,
  // Every pipeline process sends its spans to the exporter's /v1/traces.
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${EXPORTER_PORT}`,
  ORDERS_API_PORT: API_PORT,
  PAYMENTS_API_PORT,
  LOADGEN_API_URL: `http://127.0.0.1:${PAYMENTS_API_PORT}`,
  LOADGEN_RATE: RATE,
  PROVIDER_PORT,
  PROVIDER_URL: `http://127.0.0.1:${PROVIDER_PORT}`,
  LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
};

const payments = (role: string) => ['--import', 'tsx', 'examples/payments/src/main.ts', role];

/**
 * The exporter's settings for the pipelines that run (examples/<name>/acktrail.yaml, both merged for
 * `both`), with dead-letter parking of their dead-letter queues: written to .demo/.
 */
function exporterConfig(): string {
  type Config = { outbox: { tables: unknown[] } } & Record<string, unknown>;
  const read = (p: string) => parseYaml(readFileSync(p, 'utf8')) as Config;
  const config = read(`examples/${pipeline === 'payments' ? 'payments' : 'orders'}/acktrail.yaml`);
  if (pipeline === 'both')
    config.outbox.tables.push(...read('examples/payments/acktrail.yaml').outbox.tables);
  config.deadLetters = {
    enabled: true,
    url: RABBITMQ_URL,
    queues: [
      // The reference worker dead-letters by itself, after retries through the default exchange:
      // its replays go back where orders are published. Payments' come from the broker's x-death.
      ...(withOrders
        ? [
            {
              queue: 'orders.confirmations.dlq',
              replayTo: { exchange: 'orders.events', routingKey: 'order.created' },
            },
          ]
        : []),
      ...(withPayments ? [{ queue: 'payments.dead' }] : []),
    ],
  };
  mkdirSync('.demo', { recursive: true });
  writeFileSync(`.demo/acktrail.${pipeline}.yaml`, stringifyYaml(config));
  return `.demo/acktrail.${pipeline}.yaml`;
}

const ordersServices: Service[] = [
  {
    name: 'provider',
    args: orders('provider'),
    env: {
      PROVIDER_FAILURE_RATE: '0.05',
      PROVIDER_LATENCY_MS: '40',
      PROVIDER_REJECT_ADDRESSES: '*@invalid.example',
      PROVIDER_ADMIN_TOKEN,
    },
    where: `mail provider    http://127.0.0.1:${PROVIDER_PORT}  (GET /admin/stats, PUT /admin/settings, with the admin token below)`,
  },
  {
    name: 'api',
    args: orders('api'),
    where: `orders API       http://127.0.0.1:${API_PORT}/orders`,
  },
  {
    name: 'relay',
    args: orders('relay'),
    where: 'outbox relay     publishes to exchange orders.events',
  },
  {
    name: 'worker-1',
    args: orders('worker'),
    where: 'worker 1         consumes orders.confirmations',
  },
  {
    name: 'worker-2',
    args: orders('worker'),
    where: 'worker 2         consumes orders.confirmations',
  },
  {
    name: 'loadgen',
    args: orders('loadgen', '--rate', RATE, '--invalid-ratio', '0.02', '--progress-interval', '10'),
    where: `load generator   ${RATE} orders/s`,
  },
];

const paymentsServices: Service[] = [
  {
    name: 'pay-api',
    args: payments('api'),
    where: `payments API     http://127.0.0.1:${PAYMENTS_API_PORT}/intents (POST)`,
  },
  {
    name: 'pay-relay',
    args: payments('relay'),
    where: 'payments relay   publishes pay_outbox to exchange payments',
  },
  {
    name: 'pay-ledger',
    args: payments('ledger'),
    where: 'ledger           consumes payments.ledger (quorum, delivery limit 3)',
  },
  {
    name: 'pay-receipt',
    args: payments('receipts'),
    where: 'receipts         consumes payments.receipts (dead-letter exchange payments.dlx)',
  },
  {
    name: 'pay-audit',
    args: payments('audit'),
    where:
      'audit            consumes payments.audit (no dead-letter exchange: rejects are discarded)',
  },
  {
    name: 'pay-load',
    args: payments('loadgen'),
    where: `payments load    ${RATE} intents/s`,
  },
];

const services: Service[] = [
  {
    name: 'exporter',
    args: ['--import', 'tsx', 'exporter/src/main.ts'],
    env: {
      DATABASE_URL: readerUrl(),
      ACKTRAIL_DATABASE_URL: STORE_URL,
      ACKTRAIL_API_TOKEN: API_TOKEN,
      ACKTRAIL_OPERATOR_TOKEN: OPERATOR_TOKEN,
      ACKTRAIL_DEAD_LETTER_KEY: DEAD_LETTER_KEY,
      ACKTRAIL_PORT: EXPORTER_PORT,
      ACKTRAIL_CONFIG: exporterConfig(),
    },
    where: `acktrail exporter http://127.0.0.1:${EXPORTER_PORT}/metrics  (/status says which sources answer)`,
  },
  {
    name: 'prometheus',
    command: 'prometheus',
    args: [
      '--config.file=prometheus/prometheus.yml',
      '--storage.tsdb.path=.demo/prometheus',
      `--web.listen-address=127.0.0.1:${PROMETHEUS_PORT}`,
      // The exporter's exemplars (trace and event ids on its histograms) are kept.
      '--enable-feature=exemplar-storage',
      '--log.level=warn',
    ],
    where: `Prometheus       http://127.0.0.1:${PROMETHEUS_PORT}  (try acktrail_outbox_oldest_unpublished_age_seconds)`,
  },
  {
    name: 'dashboard',
    // Built by `npm run demo` before this script starts.
    args: ['dashboard/.next/standalone/dashboard/server.js'],
    env: {
      PORT: DASHBOARD_PORT,
      HOSTNAME: '127.0.0.1',
      ACKTRAIL_API_URL: `http://127.0.0.1:${EXPORTER_PORT}`,
      ACKTRAIL_API_TOKEN: API_TOKEN,
      PROMETHEUS_URL: `http://127.0.0.1:${PROMETHEUS_PORT}`,
      // A Grafana of one's own with acktrail's dashboards (grafana/): its panels join the pages.
      ...(env.GRAFANA_URL ? { GRAFANA_URL: env.GRAFANA_URL } : {}),
      DASHBOARD_SECRET,
      ACKTRAIL_OPERATOR_TOKEN: OPERATOR_TOKEN,
      DASHBOARD_OPERATOR_SECRET,
      NEXT_TELEMETRY_DISABLED: '1',
    },
    where: `dashboard        http://127.0.0.1:${DASHBOARD_PORT}  (overview, event lookup and timelines)`,
  },
  ...(withOrders ? ordersServices : []),
  ...(withPayments ? paymentsServices : []),
];

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

function format(name: string, line: string): string {
  try {
    const {
      level,
      time,
      msg,
      role: _r,
      name: _n,
      pid: _p,
      hostname: _h,
      ...rest
    } = JSON.parse(line) as Record<string, unknown>;
    const fields = Object.entries(rest).map(
      ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
    const t = new Date(Number(time)).toISOString().slice(11, 19);
    return `${t} ${name.padEnd(10)} ${(LEVELS[Number(level)] ?? '').padEnd(5)} ${String(msg)} ${fields.join(' ')}`;
  } catch {
    return `${new Date().toISOString().slice(11, 19)} ${name.padEnd(10)} ${line}`;
  }
}

function readerUrl(): string {
  const url = new URL(DATABASE_URL);
  url.username = READER.user;
  url.password = READER.password;
  return url.toString();
}

/** Creates the demo's pipeline database and journey store unless their URLs were given. */
async function ensureDatabases(): Promise<void> {
  const wanted = [
    ...(env.DATABASE_URL ? [] : [DB_NAME]),
    ...(env.ACKTRAIL_DATABASE_URL ? [] : [STORE_NAME]),
  ];
  if (wanted.length === 0) return;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    for (const name of wanted) {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
    }
  } finally {
    await admin.end();
  }
}

/** The exporter's read-only role: SELECT on the pipeline's tables, nothing else. */
async function ensureReader(): Promise<void> {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    const exists = await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [READER.user]);
    if (!exists.rowCount) {
      await db.query(`CREATE ROLE ${READER.user} LOGIN PASSWORD '${READER.password}'`);
    }
    const dbName = new URL(DATABASE_URL).pathname.slice(1);
    await db.query(`GRANT CONNECT ON DATABASE "${dbName}" TO ${READER.user}`);
    await db.query(`GRANT USAGE ON SCHEMA public TO ${READER.user}`);
    // Every table of the pipelines' schemas, whatever their names: SELECT and nothing else.
    await db.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${READER.user}`);
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  await ensureDatabases();
  const applied = [
    ...(withOrders ? await migrate(DATABASE_URL) : []),
    ...(withPayments ? await migratePayments(DATABASE_URL) : []),
  ];
  await ensureReader();
  console.log(
    `demo: database ${DATABASE_URL.replace(/:[^:@/]+@/, ':***@')} migrated (${applied.length} new migrations)`,
  );

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  for (const s of services) {
    const child = spawn(s.command ?? process.execPath, s.args, {
      env: { ...env, ...common, ...s.env },
      cwd: s.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own: Ctrl-C reaches the demo only, which stops the children in order.
      detached: true,
    });
    children.set(s.name, child);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        console.log(format(s.name, line));
      });
    }
    child.on('exit', (code, signal) => {
      children.delete(s.name);
      if (!stopping)
        console.log(`demo: ${s.name} exited (${signal ?? code}); the rest keeps running`);
    });
  }

  console.log('\nacktrail demo is running:');
  for (const s of services) console.log(`  ${s.where}`);
  console.log(`  RabbitMQ         http://127.0.0.1:15672 (guest/guest)`);
  const from = (name: string) =>
    env[name] !== undefined
      ? ` (from ${name})`
      : kept[name] !== undefined
        ? ` (kept in ${SECRETS_FILE})`
        : ` (new, kept in ${SECRETS_FILE}; set ${name} to choose one)`;
  console.log(`\nJourney API token${from('ACKTRAIL_API_TOKEN')}:\n  ${API_TOKEN}`);
  console.log(
    `Dashboard secret${from('DASHBOARD_SECRET')}: sign in at http://127.0.0.1:${DASHBOARD_PORT} with\n  ${DASHBOARD_SECRET}`,
  );
  console.log(
    `Operator secret${from('DASHBOARD_OPERATOR_SECRET')}: sign in with it to replay dead letters (/dead-letters)\n  ${DASHBOARD_OPERATOR_SECRET}`,
  );
  if (withOrders)
    console.log(
      `Mail provider admin token${from('PROVIDER_ADMIN_TOKEN')}:\n  ${PROVIDER_ADMIN_TOKEN}`,
    );
  console.log('\nTry:');
  if (withOrders) console.log(`  curl -s localhost:${API_PORT}/orders/1 | jq`);
  if (withPayments)
    console.log(
      `  curl -s -XPOST -H 'content-type: application/json' -d '{"amount_cents":-5,"currency":"EUR"}' localhost:${PAYMENTS_API_PORT}/intents`,
    );
  console.log(
    `  curl -s -H "Authorization: Bearer ${API_TOKEN}" 'localhost:${EXPORTER_PORT}/api/coverage' | jq`,
  );
  console.log(
    `  curl -s -H "Authorization: Bearer ${API_TOKEN}" 'localhost:${EXPORTER_PORT}/api/events?aggregate_id=1' | jq`,
  );
  console.log(
    `  curl -s -H "Authorization: Bearer ${API_TOKEN}" 'localhost:${EXPORTER_PORT}/api/events?anomaly=dead_lettered' | jq`,
  );
  if (withOrders)
    console.log(
      `  curl -s -H "Authorization: Bearer ${PROVIDER_ADMIN_TOKEN}" localhost:${PROVIDER_PORT}/admin/stats | jq`,
    );
  console.log('Ctrl-C stops everything\n');

  // The load first, then the pipeline (its last spans still reach the exporter), then what
  // watches it: the exporter, Prometheus and the dashboard.
  const LOAD = ['loadgen', 'pay-load'];
  const WATCHERS = ['exporter', 'prometheus', 'dashboard'];
  const stopped = (names: string[]) =>
    Promise.all(
      names.flatMap((name) => {
        const child = children.get(name);
        if (!child) return [];
        return [
          new Promise<void>((resolve) => {
            child.once('exit', () => {
              resolve();
            });
            child.kill('SIGTERM');
          }),
        ];
      }),
    );
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('\ndemo: stopping the load, then the pipeline, then the exporter and dashboard');
    setTimeout(() => {
      for (const child of children.values()) child.kill('SIGKILL');
      process.exit(1);
    }, 15_000).unref();
    const pipeline = [...children.keys()].filter((n) => !LOAD.includes(n) && !WATCHERS.includes(n));
    void stopped(LOAD)
      .then(() => stopped(pipeline))
      .then(() => stopped(WATCHERS))
      .then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
