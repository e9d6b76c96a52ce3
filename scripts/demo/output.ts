// What the demo prints: each process's JSON log lines as one readable line, and where everything
// runs with the tokens to use.
import {
  API_PORT,
  API_TOKEN,
  DASHBOARD_OPERATOR_SECRET,
  DASHBOARD_PORT,
  DASHBOARD_SECRET,
  EXPORTER_PORT,
  PAYMENTS_API_PORT,
  PROVIDER_ADMIN_TOKEN,
  PROVIDER_PORT,
  secretSource,
  withOrders,
  withPayments,
} from './settings.js';
import type { Service } from './services.js';

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

export function format(name: string, line: string): string {
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

/** Where each service answers, the secrets and a few commands to try. */
export function printWelcome(services: Service[]): void {
  console.log('\nacktrail demo is running:');
  for (const s of services) console.log(`  ${s.where}`);
  console.log(`  RabbitMQ         http://127.0.0.1:15672 (guest/guest)`);
  console.log(`\nJourney API token${secretSource('ACKTRAIL_API_TOKEN')}:\n  ${API_TOKEN}`);
  console.log(
    `Dashboard secret${secretSource('DASHBOARD_SECRET')}: sign in at http://127.0.0.1:${DASHBOARD_PORT} with\n  ${DASHBOARD_SECRET}`,
  );
  console.log(
    `Operator secret${secretSource('DASHBOARD_OPERATOR_SECRET')}: sign in with it to replay dead letters (/dead-letters)\n  ${DASHBOARD_OPERATOR_SECRET}`,
  );
  if (withOrders)
    console.log(
      `Mail provider admin token${secretSource('PROVIDER_ADMIN_TOKEN')}:\n  ${PROVIDER_ADMIN_TOKEN}`,
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
}
