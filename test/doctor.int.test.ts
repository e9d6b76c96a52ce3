// `acktrail doctor`, run as a user runs the command, against set-ups that work and ones that do
// not: a broker whose management user has only the management tag (not monitoring), names a vhost
// that is not there and whose rabbitmq_prometheus endpoint cannot be reached; a refused 401 told
// apart (a wrong password, or a user without a tag: the same credentials over AMQP); a store never
// migrated, read by a role that can write; a store where nothing listens, named by its variable;
// a dead-letter queue that does not exist and a port another program holds; Celery on Redis with
// a real worker sending events, and on a database no worker uses. Each problem is one line that
// names the source and the fix; a failure makes exit 1; no line carries a password.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import {
  OwnRedis,
  REPO_ROOT,
  createTestDatabase,
  createTestVhost,
  freePort,
  management,
  type TestDatabase,
  type TestVhost,
  waitFor,
} from '@acktrail/testing';
import { createReadOnlyRole, writeConfig } from '@acktrail/exporter/testing';
import { migrateStore } from '@acktrail/exporter/testing/store';

const run = promisify(execFile);
const USER = `doctor-${randomBytes(4).toString('hex')}`;
const UNTAGGED = `doctor-untagged-${randomBytes(4).toString('hex')}`;
const PASSWORD = `pw-${randomBytes(8).toString('hex')}`;
const KEY = randomBytes(32).toString('base64');

let vhost: TestVhost;
let store: TestDatabase;
let migrated: TestDatabase;
let readOnly: Awaited<ReturnType<typeof createReadOnlyRole>>;

before(async () => {
  vhost = await createTestVhost();
  store = await createTestDatabase('acktrail_doctor');
  migrated = await createTestDatabase('acktrail_doctor');
  await migrateStore(migrated.url);
  readOnly = await createReadOnlyRole(new URL(migrated.url).pathname.slice(1));
  // A management user as a team often makes one: the management tag, enough to sign in to the
  // UI, which sees only the vhosts it has permissions on.
  await management(`/users/${USER}`, {
    method: 'PUT',
    body: JSON.stringify({ password: PASSWORD, tags: 'management' }),
  });
  // A user made for AMQP only: the right password, no tag at all.
  await management(`/users/${UNTAGGED}`, {
    method: 'PUT',
    body: JSON.stringify({ password: PASSWORD, tags: '' }),
  });
  await management(`/permissions/${encodeURIComponent(vhost.name)}/${USER}`, {
    method: 'PUT',
    body: JSON.stringify({ configure: '.*', write: '.*', read: '.*' }),
  });
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createChannel();
  await ch.assertQueue('jobs.dlq', { durable: true });
  await conn.close();
});

after(async () => {
  await management(`/users/${USER}`, { method: 'DELETE' });
  await management(`/users/${UNTAGGED}`, { method: 'DELETE' });
  await vhost.drop();
  await store.drop();
  await migrated.drop();
  await readOnly.drop();
});

/** `acktrail doctor` from the source, as `npx acktrail doctor` runs the build: output and exit. */
async function doctor(env: Record<string, string>, config: object) {
  const result = await run(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'exporter/src/cli.ts'), 'doctor'],
    {
      env: { PATH: process.env.PATH, ACKTRAIL_CONFIG: writeConfig(config), ...env },
      timeout: 60_000,
    },
  ).then(
    (r) => ({ ...r, code: 0 }),
    (err: unknown) => err as { stdout: string; stderr: string; code: number },
  );
  return { out: result.stdout, code: result.code };
}

const line = (out: string, verdict: string, source: RegExp) =>
  out.split('\n').find((l) => l.startsWith(verdict) && source.test(l)) ?? '';

test('a set-up that works: every line ok, exit 0', async () => {
  const port = await freePort();
  const { out, code } = await doctor(
    {
      RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:15672',
      DATABASE_URL: readOnly.url,
      ACKTRAIL_DATABASE_URL: migrated.url,
      ACKTRAIL_PORT: String(port),
      ACKTRAIL_DEAD_LETTER_KEY: KEY,
    },
    {
      rabbitmq: { vhosts: [vhost.name] },
      deadLetters: { enabled: true, url: vhost.url, queues: [{ queue: 'jobs.dlq' }] },
    },
  );
  assert.equal(code, 0, out);
  assert.match(line(out, 'ok', /management API/), /tags administrator/);
  assert.match(line(out, 'ok', /rabbitmq_prometheus/), /node rabbit@/);
  assert.match(line(out, 'ok', /pipeline database/), /read-only/);
  assert.match(line(out, 'ok', /journey store/), /migrations applied/);
  assert.match(line(out, 'ok', /dead-letter parking/), /1 queues to park/);
  assert.match(line(out, 'ok', /ACKTRAIL_PORT/), /free/);
  assert.doesNotMatch(out, /warn|FAIL/);
});

test('the broker: a user without the monitoring tag, a vhost not there, rabbitmq_prometheus unreachable', async () => {
  const closed = await freePort();
  const { out, code } = await doctor(
    { RABBITMQ_MANAGEMENT_URL: `http://${USER}:${PASSWORD}@127.0.0.1:15672`, ACKTRAIL_PORT: '0' },
    {
      rabbitmq: {
        vhosts: [vhost.name, 'no-such-vhost'],
        source: 'prometheus',
        prometheusUrl: `http://127.0.0.1:${closed}`,
      },
      journeys: { enabled: false },
    },
  );
  assert.equal(code, 1, out);
  assert.match(
    line(out, 'warn', /management API/),
    new RegExp(`user ${USER} has tags \\[management\\]`),
  );
  assert.match(out, new RegExp(`fix: rabbitmqctl set_user_tags ${USER} monitoring`));
  assert.match(line(out, 'FAIL', /vhost no-such-vhost/), /no such vhost/);
  assert.equal(line(out, 'FAIL', new RegExp(`vhost ${vhost.name}`)), '', 'its own vhost is read');
  assert.match(line(out, 'FAIL', /rabbitmq_prometheus/), /cannot connect \(ECONNREFUSED\)/);
  assert.match(out, /fix: enable rabbitmq_prometheus/);
  assert.ok(!out.includes(PASSWORD), 'no password printed');

  const wrong = await doctor(
    { RABBITMQ_MANAGEMENT_URL: `http://${USER}:wrong@127.0.0.1:15672`, ACKTRAIL_PORT: '0' },
    { rabbitmq: { source: 'management' }, journeys: { enabled: false } },
  );
  assert.equal(wrong.code, 1);
  assert.match(
    line(wrong.out, 'FAIL', /management API/),
    /refused \(401\): a wrong user or password \(the broker refuses the same credentials over amqp at 127\.0\.0\.1:5672\)/,
  );
  assert.match(wrong.out, /fix: correct the credentials in RABBITMQ_MANAGEMENT_URL\n/);

  // The right password, no tag: the management API says 401 all the same; AMQP tells them apart.
  const untagged = await doctor(
    {
      RABBITMQ_MANAGEMENT_URL: `http://${UNTAGGED}:${PASSWORD}@127.0.0.1:15672`,
      ACKTRAIL_PORT: '0',
    },
    { rabbitmq: { source: 'management' }, journeys: { enabled: false } },
  );
  assert.equal(untagged.code, 1);
  assert.match(
    line(untagged.out, 'FAIL', /management API/),
    new RegExp(
      `refused \\(401\\): user ${UNTAGGED} has the right password .* but no management or monitoring tag`,
    ),
  );
  assert.match(untagged.out, new RegExp(`fix: rabbitmqctl set_user_tags ${UNTAGGED} monitoring`));
  assert.ok(!untagged.out.includes(PASSWORD), 'no password printed');
});

test('a store where nothing listens: said in words, with the variable its URL came from', async () => {
  const closed = await freePort();
  const url = `postgres://acktrail:secret-pw@127.0.0.1:${closed}/journeys`;
  const config = { rabbitmq: { enabled: false } };
  for (const variable of ['ACKTRAIL_DATABASE_URL', 'DATABASE_URL']) {
    const { out, code } = await doctor({ [variable]: url, ACKTRAIL_PORT: '0' }, config);
    assert.equal(code, 1, out);
    assert.match(
      line(out, 'FAIL', /journey store/),
      new RegExp(
        `nothing listens at 127\\.0\\.0\\.1:${closed}: the connection was refused \\(${variable}\\)`,
      ),
      out,
    );
    assert.match(out, new RegExp(`fix: correct ${variable} \\(or ${variable}_FILE\\)`));
    assert.ok(!out.includes('secret-pw'), 'no password printed');
  }
});

test('the store never migrated and a writing role, a dead-letter queue not there, a port taken', async () => {
  const holder = createServer(() => undefined).listen(0, '127.0.0.1');
  await once(holder, 'listening');
  const taken = (holder.address() as { port: number }).port;
  try {
    const { out, code } = await doctor(
      {
        RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:15672',
        DATABASE_URL: store.url,
        ACKTRAIL_PORT: String(taken),
        ACKTRAIL_DEAD_LETTER_KEY: KEY,
      },
      {
        rabbitmq: { enabled: false },
        deadLetters: { enabled: true, url: vhost.url, queues: [{ queue: 'jobs.missing.dlq' }] },
      },
    );
    assert.equal(code, 1, out);
    assert.match(line(out, 'warn', /pipeline database/), /can write/);
    assert.match(line(out, 'warn', /journey store/), /\d+ of \d+ migrations not applied/);
    assert.match(out, /fix: acktrail serve applies them when it starts; or run acktrail migrate/);
    assert.match(line(out, 'FAIL', /dead-letter parking/), /no queue jobs\.missing\.dlq/);
    assert.match(line(out, 'FAIL', /ACKTRAIL_PORT/), /in use by another program/);
  } finally {
    holder.close();
  }
});

test('Celery over Sentinel where nothing answers: a FAIL line that names it, and the doctor ends', async () => {
  // One sentinel accepts connections and never says a word; the other port refuses them.
  const silent = createServer(() => undefined).listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const mute = (silent.address() as { port: number }).port;
  const closed = await freePort();
  try {
    const { out, code } = await doctor(
      { ACKTRAIL_PORT: '0' },
      {
        rabbitmq: { enabled: false },
        journeys: { enabled: false },
        celery: {
          enabled: true,
          url: `sentinel://127.0.0.1:${mute};sentinel://127.0.0.1:${closed}/0`,
          redis: { masterName: 'mymaster' },
        },
      },
    );
    assert.equal(code, 1, out);
    assert.match(
      line(
        out,
        'FAIL',
        new RegExp(`Celery broker 127\\.0\\.0\\.1:${mute}, 127\\.0\\.0\\.1:${closed}`),
      ),
      /./,
      out,
    );
  } finally {
    silent.close();
  }
});

test('Celery on Redis at a closed port: the FAIL line says nothing listens there, in words', async () => {
  const closed = await freePort();
  const { out, code } = await doctor(
    { ACKTRAIL_PORT: '0' },
    {
      rabbitmq: { enabled: false },
      journeys: { enabled: false },
      celery: { enabled: true, url: `redis://127.0.0.1:${closed}/0` },
    },
  );
  assert.equal(code, 1, out);
  assert.match(
    line(out, 'FAIL', new RegExp(`Celery broker 127\\.0\\.0\\.1:${closed}`)),
    new RegExp(`nothing listens at 127\\.0\\.0\\.1:${closed}: the connection was refused`),
    out,
  );
  assert.doesNotMatch(out, /Connection is closed/);
});

test('Celery on Redis: events from a real worker arrive where serve reads them; none on a database no worker uses', async () => {
  const redis = new OwnRedis(await freePort());
  await redis.start();
  // A real Celery 5 worker sending events (-E) on database 0, as test/celery-redis.int.test.ts runs one.
  const worker = spawn(
    '/usr/bin/python3',
    [
      '-m',
      'celery',
      '-A',
      'tasks',
      'worker',
      '-E',
      '-c',
      '1',
      '-n',
      'doctor@localhost',
      '-l',
      'warning',
    ],
    {
      cwd: join(REPO_ROOT, 'test', 'celery'),
      env: {
        PATH: process.env.PATH,
        CELERY_BROKER_URL: redis.url(0),
        CELERY_RESULT_BACKEND: redis.url(1),
        PYTHONDONTWRITEBYTECODE: '1',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
      // Its own process group: killing the group stops the pool's children too.
      detached: true,
    },
  );
  const listener = new Redis(redis.url(0));
  try {
    // The worker is up once its first heartbeat is on the channel.
    let heard = false;
    listener.on('pmessage', () => {
      heard = true;
    });
    await listener.psubscribe('/0.celeryev/*');
    await waitFor("the worker's first heartbeat", () => heard, { timeoutMs: 60_000 });
    const celery = (db: number) => ({
      rabbitmq: { enabled: false },
      journeys: { enabled: false },
      celery: { enabled: true, url: redis.url(db) },
    });
    const sending = await doctor({ ACKTRAIL_PORT: '0' }, celery(0));
    assert.equal(sending.code, 0, sending.out);
    assert.match(
      line(sending.out, 'ok', /Celery broker/),
      /Celery events arrive on \/0\.celeryev\/worker\.\w+ \(worker-\w+\)/,
    );
    const silent = await doctor({ ACKTRAIL_PORT: '0' }, celery(3));
    assert.equal(silent.code, 0, silent.out);
    assert.match(
      line(silent.out, 'warn', /Celery broker/),
      /no Celery event on \/3\.celeryev\/\* within \d+ s/,
    );
    assert.match(silent.out, /fix: start the workers with -E/);
  } finally {
    listener.disconnect();
    const exited = once(worker, 'exit');
    process.kill(-worker.pid!, 'SIGKILL');
    await exited;
    await redis.stop();
  }
});
