// What the demo runs: the exporter (with the pipelines' settings and dead-letter parking),
// Prometheus, the dashboard, and the processes of the chosen pipelines, each with where it
// answers.
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  API_PORT,
  API_TOKEN,
  DASHBOARD_OPERATOR_SECRET,
  DASHBOARD_PORT,
  DASHBOARD_SECRET,
  DATABASE_URL,
  DEAD_LETTER_KEY,
  EXPORTER_PORT,
  OPERATOR_TOKEN,
  PAYMENTS_API_PORT,
  PROMETHEUS_PORT,
  PROVIDER_ADMIN_TOKEN,
  PROVIDER_PORT,
  RABBITMQ_URL,
  RATE,
  READER,
  STORE_URL,
  env,
  pipeline,
  withOrders,
  withPayments,
} from './settings.js';

export interface Service {
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

export const common = {
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
    // The payments work queues whose x-death names where to replay (docs/dead-letters.md).
    ...(withPayments ? { replay: { sourceQueues: ['payments.ledger', 'payments.receipts'] } } : {}),
  };
  mkdirSync('.demo', { recursive: true });
  writeFileSync(`.demo/acktrail.${pipeline}.yaml`, stringifyYaml(config));
  return `.demo/acktrail.${pipeline}.yaml`;
}

export const ordersServices: Service[] = [
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

export const paymentsServices: Service[] = [
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

export const services: Service[] = [
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

export function readerUrl(): string {
  const url = new URL(DATABASE_URL);
  url.username = READER.user;
  url.password = READER.password;
  return url.toString();
}
