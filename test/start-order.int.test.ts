// The exporter started before the services it needs: first the exporter, then PostgreSQL, then
// RabbitMQ. It answers /healthz and /metrics throughout, /status says what is missing, /readyz is
// 503 only until the journey store answers (a broker away is no reason to leave the Service), and
// every part comes up by itself as its service does: no restart by hand.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import amqp from 'amqplib';
import pg from 'pg';
import {
  type RoleProcess,
  type TestDatabase,
  type TestVhost,
  createTestVhost,
  management,
  waitFor,
} from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { ordersConfig, startExporterProcess } from '@acktrail/exporter/testing';
import { jsonBody } from '@acktrail/exporter/testing/otlp';

const PG_VERSION = readdirSync('/etc/postgresql').sort().at(-1)!;
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: 'pipe' });
const postgres = (action: 'start' | 'stop') =>
  run('pg_ctlcluster', ['--skip-systemctl-redirect', PG_VERSION, 'main', action, '-m', 'fast']);
const rabbitmq = (action: 'start_app' | 'stop_app') => run('rabbitmqctl', ['-q', action]);

async function postgresUp(): Promise<boolean> {
  const c = new pg.Client({ connectionString: pipeline.url });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}
const rabbitUp = () =>
  management('/overview').then(
    () => true,
    () => false,
  );

let pipeline: TestDatabase;
let store: TestDatabase;
let vhost: TestVhost;
let exporter: { proc: RoleProcess; url: string } | null = null;

before(async () => {
  pipeline = await createTestDatabase();
  store = await createTestDatabase('acktrail_store', false);
  vhost = await createTestVhost();
});
after(async () => {
  // Whatever happened, the services run again for the tests after this one.
  if (!(await postgresUp())) postgres('start');
  if (!(await rabbitUp())) rabbitmq('start_app');
  await waitFor('PostgreSQL', postgresUp, { timeoutMs: 60_000 });
  await waitFor('RabbitMQ', rabbitUp, { timeoutMs: 60_000 });
  await exporter?.proc.stop();
  await vhost.drop();
  await store.drop();
  await pipeline.drop();
});

interface Ready {
  status: string;
  down: string[];
  pending: string[];
}

/** /readyz's status code and /status's body. */
async function readyz(): Promise<{ code: number; body: Ready }> {
  const ready = await fetch(`${exporter!.url}/readyz`);
  await ready.body?.cancel();
  const res = await fetch(`${exporter!.url}/status`);
  return { code: ready.status, body: (await res.json()) as Ready };
}

/** Scrapes (which runs the collectors) and reads /readyz and /status. */
async function scrapeThenReady(): Promise<{ code: number; body: Ready }> {
  const metrics = await fetch(`${exporter!.url}/metrics`);
  assert.equal(metrics.status, 200, '/metrics answers whatever is down');
  await metrics.text();
  return readyz();
}

const span = (eventId: string) => jsonBody('ab'.repeat(16), 1, eventId);

test(
  'exporter first, then PostgreSQL, then RabbitMQ: every part ready without a restart',
  {
    timeout: 240_000,
  },
  async () => {
    postgres('stop');
    rabbitmq('stop_app');
    exporter = await startExporterProcess(
      { DATABASE_URL: pipeline.url, ACKTRAIL_DATABASE_URL: store.url },
      ordersConfig({
        rabbitmq: { vhosts: [vhost.name], timeoutSeconds: 2 },
        celery: { enabled: true, url: vhost.url },
      }),
      { waitForStore: false },
    ).catch((err: unknown) => {
      throw new Error('the exporter must start without its services', { cause: err });
    });
    const url = exporter.url;

    // Nothing is there: alive, not ready, and it says why.
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    let r = await scrapeThenReady();
    assert.equal(r.code, 503);
    assert.equal(r.body.status, 'degraded');
    for (const part of ['journey_store', 'celery', 'rabbitmq', 'outbox'])
      assert.ok(r.body.down.includes(part) || r.body.pending.includes(part), `${part} not up`);
    const refused = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: span('ev-early'),
    });
    assert.equal(
      refused.status,
      503,
      'spans are refused with "retry later" while the store is away',
    );

    // PostgreSQL comes: the store migrates, the SQL collectors read.
    postgres('start');
    await waitFor(
      'the journey store and the SQL collectors up',
      async () => {
        r = await scrapeThenReady();
        return ['journey_store', 'outbox', 'confirmations', 'provider'].every(
          (p) => !r.body.down.includes(p) && !r.body.pending.includes(p),
        );
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    assert.equal(r.code, 200, 'ready to serve with the store up, though RabbitMQ is away');
    assert.equal(r.body.status, 'degraded', '/status says RabbitMQ is away');
    assert.ok(r.body.down.includes('rabbitmq'));
    const taken = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: span('ev-late'),
    });
    assert.equal(taken.status, 200);

    // RabbitMQ comes: the broker collectors and the Celery consumer follow.
    rabbitmq('start_app');
    await waitFor(
      'every part ready',
      async () => {
        r = await scrapeThenReady();
        return r.code === 200 && r.body.status === 'ready';
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    const conn = await amqp.connect(vhost.url);
    const ch = await conn.createConfirmChannel();
    const task = crypto.randomUUID();
    ch.publish(
      'celeryev',
      'task.sent',
      Buffer.from(
        JSON.stringify({ type: 'task-sent', uuid: task, timestamp: Date.now() / 1000, name: 't' }),
      ),
    );
    await ch.waitForConfirms();
    await conn.close();
    const db = new pg.Client({ connectionString: store.url });
    await db.connect();
    try {
      await waitFor('the Celery event stored', async () => {
        const rows = await db.query('SELECT 1 FROM journey_steps WHERE event_id = $1', [task]);
        return rows.rows.length === 1;
      });
      const early = await db.query(`SELECT 1 FROM journey_steps WHERE event_id = 'ev-late-0'`);
      assert.equal(early.rows.length, 1);
    } finally {
      await db.end();
    }
    assert.equal(exporter.proc.running, true, 'the same process all along');
  },
);
