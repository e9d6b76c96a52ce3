// Per-test-file isolation on the shared local services: a database and a RabbitMQ vhost of its
// own, each with a random name, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { waitFor } from './wait.js';

/** The maintenance database the acktrail role (created by scripts/services.sh) connects to. */
export const ADMIN_DATABASE_URL = 'postgres://acktrail:acktrail@127.0.0.1:5432/postgres';
export const RABBITMQ_HOST_URL = 'amqp://guest:guest@127.0.0.1:5672';
export const RABBITMQ_MANAGEMENT_URL = 'http://guest:guest@127.0.0.1:15672';
/** RabbitMQ 4.0 as the official image ships it, beside the default node (scripts/rabbitmq4.sh). */
export const RABBITMQ4 = {
  amqp: 'amqp://guest:guest@127.0.0.1:5691',
  management: 'http://guest:guest@127.0.0.1:15691',
  prometheus: 'http://127.0.0.1:15711',
};
/**
 * The newest RabbitMQ Debian packages (unstable), set up as the official image ships it
 * (`scripts/rabbitmq4.sh --newest`); docker-compose.yml pins its image to this version.
 */
export const RABBITMQ_NEWEST = {
  version: '4.3.6',
  amqp: 'amqp://guest:guest@127.0.0.1:5693',
  management: 'http://guest:guest@127.0.0.1:15693',
  prometheus: 'http://127.0.0.1:15713',
};

const uniqueName = (prefix: string) =>
  `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** How long a drop waits for connections that are closing before it ends them (FORCE). */
const CLOSING_MS = 2000;

/**
 * A new database; `prepare` (a pipeline's migrations, say) runs on it before it is handed over.
 * Dropped with FORCE: connections a test left open do not keep it. Connections still closing
 * are let go first: pg's `Pool.end()` resolves before its sockets have closed, and a connection
 * that FORCE ends before its server saw the goodbye is an error the pool emits, uncaught where
 * the pool has no error listener (a CI run failed a test file so).
 */
export async function createTestDatabase(
  prefix = 'acktrail_test',
  prepare: ((url: string) => Promise<unknown>) | null = null,
): Promise<TestDatabase> {
  const name = uniqueName(prefix);
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = databaseUrl(name);
  await prepare?.(url);
  return {
    name,
    url,
    drop: async () => {
      await withAdmin(async (admin) => {
        // Past the bound, what is still open was left open: FORCE ends it.
        await waitFor(
          `the connections to ${name} to close`,
          async () => {
            const open = await admin.query<{ n: number }>(
              'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
              [name],
            );
            return open.rows[0]!.n === 0;
          },
          { timeoutMs: CLOSING_MS, intervalMs: 20 },
        ).catch(() => undefined);
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
    },
  };
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

export interface TestVhost {
  name: string;
  /** amqp URL of the vhost */
  url: string;
  drop(): Promise<void>;
}

/** Calls the management HTTP API (credentials from the URL); throws on a non-2xx answer. */
export async function management(
  path: string,
  init: RequestInit = {},
  base = RABBITMQ_MANAGEMENT_URL,
): Promise<unknown> {
  const url = new URL(`/api${path}`, base);
  const auth = Buffer.from(
    `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
  ).toString('base64');
  url.username = '';
  url.password = '';
  const headers = new Headers(init.headers);
  headers.set('authorization', `Basic ${auth}`);
  headers.set('content-type', 'application/json');
  const res = await fetch(url, { ...init, headers });
  if (!res.ok)
    throw new Error(
      `management API ${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`,
    );
  const text = await res.text();
  return text ? (JSON.parse(text) as unknown) : null;
}

/** A new vhost with guest's permissions; `broker`: another broker than the default node. */
export async function createTestVhost(
  prefix = 'acktrail_test',
  broker = { amqp: RABBITMQ_HOST_URL, management: RABBITMQ_MANAGEMENT_URL },
): Promise<TestVhost> {
  const name = uniqueName(prefix);
  const v = encodeURIComponent(name);
  await management(`/vhosts/${v}`, { method: 'PUT', body: '{}' }, broker.management);
  await management(
    `/permissions/${v}/guest`,
    { method: 'PUT', body: JSON.stringify({ configure: '.*', write: '.*', read: '.*' }) },
    broker.management,
  );
  return {
    name,
    url: `${broker.amqp}/${v}`,
    drop: async () => {
      await management(`/vhosts/${v}`, { method: 'DELETE' }, broker.management);
    },
  };
}
