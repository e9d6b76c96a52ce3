// Celery on a Redis broker, what only Redis has: a Redis server of this file's own (a port of its
// own, so that stopping it stops nobody else's), real Celery 5 workers and clients (Debian's
// python3-celery). The exporter starts before Redis and finds it; two exporter replicas count
// each event once; queue lengths equal LLEN with the priority lists, the unacknowledged equal
// HLEN unacked; a worker killed mid-task (acks late) leaves its message to the visibility
// timeout, another worker runs it again, and the task's journey and a counter say so; Redis
// restarted under load: the exporter recovers by itself, says what it missed, and /metrics always
// answers. Through a Redis Sentinel (redis-server --sentinel), a worker's events reach acktrail
// as Celery's sentinel:// URL names the broker.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { OwnRedis, REPO_ROOT, waitFor } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import type { Journey } from '@acktrail/exporter';
import { envelope } from '@acktrail/exporter/testing/celery';

const TOKEN = 'celery-redis-token-0123456789';
const DIR = join(REPO_ROOT, 'test', 'celery');
const PYTHON = '/usr/bin/python3';
const PORT = 6391;
const BROKER = `redis://127.0.0.1:${PORT}/0`;
const VISIBILITY_S = 5;

// This file's Redis: started, stopped and started again by the tests.
const redis = new OwnRedis(PORT);
let client: Redis;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
const workers: ChildProcess[] = [];

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  CELERY_BROKER_URL: BROKER,
  CELERY_RESULT_BACKEND: `redis://127.0.0.1:${PORT}/1`,
  CELERY_VISIBILITY_TIMEOUT: String(VISIBILITY_S),
  PYTHONDONTWRITEBYTECODE: '1',
  ...extra,
});

/**
 * A prefork worker on the `celery` queue, in a process group of its own: SIGKILL to the group
 * stops its pool's children too, as losing the machine would. (A solo-pool worker would not do:
 * it sends its task events only between tasks.)
 */
function startWorker(name: string, extraEnv: NodeJS.ProcessEnv = {}): ChildProcess {
  const w = spawn(
    PYTHON,
    ['-m', 'celery', '-A', 'tasks', 'worker', '-E', '-c', '1', '-n', name, '-l', 'warning'],
    { cwd: DIR, env: env(extraEnv), stdio: ['ignore', 'ignore', 'inherit'], detached: true },
  );
  workers.push(w);
  return w;
}

async function stopWorker(w: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (w.exitCode !== null || w.signalCode !== null) return;
  const exited = once(w, 'exit');
  if (signal === 'SIGKILL') process.kill(-w.pid!, 'SIGKILL');
  else w.kill(signal);
  await exited;
}

/** test/celery/send.py ARGS; its stdout's lines. */
async function send(...args: string[]): Promise<string[]> {
  const p = spawn(PYTHON, ['send.py', ...args], {
    cwd: DIR,
    env: env(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  p.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(p, 'exit')) as [number];
  assert.equal(code, 0, `send.py ${args.join(' ')}`);
  return out.trim().split('\n').filter(Boolean);
}

async function journey(id: string): Promise<Journey | null> {
  const res = await fetch(`${exporter.url}/api/events/${id}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return res.ok ? ((await res.json()) as Journey) : null;
}

const celeryPart = async (e: TestExporter) =>
  (
    (await (await fetch(`${e.url}/status`)).json()) as {
      parts: { part: string; up: boolean | null; note?: string }[];
    }
  ).parts.find((p) => p.part === 'celery');

const subscribed = (e: TestExporter) =>
  e.logs.filter((l) => l.msg === 'celery: subscribed to the Redis event channel').length;

before(() => {
  client = new Redis(PORT, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
  // Redis is stopped on purpose below; this client's reconnecting is no failure.
  client.on('error', () => undefined);
});

after(async () => {
  for (const w of workers) await stopWorker(w, 'SIGKILL');
  client.disconnect();
  await exporter.close();
  await redis.stop();
});

test('started before Redis: /metrics answers and /status says why; then it subscribes by itself', async () => {
  exporter = await TestExporter.withStore(
    { ACKTRAIL_API_TOKEN: TOKEN },
    {
      rabbitmq: { enabled: false },
      celery: {
        enabled: true,
        url: BROKER,
        queues: ['celery', 'idle'],
        redis: { visibilityTimeoutSeconds: VISIBILITY_S, leaseSeconds: 3 },
      },
    },
  );
  const down = await waitFor('the celery part down', async () => {
    const part = await celeryPart(exporter);
    return part?.up === false ? part : null;
  });
  assert.match(JSON.stringify(down), /ECONNREFUSED/);
  assert.equal((await exporter.scrape()).value('acktrail_celery_visibility_timeout_seconds'), 5);
  await redis.start();
  await client.connect();
  await waitFor('subscribed', () => subscribed(exporter) === 1, { timeoutMs: 30_000 });
  assert.equal((await celeryPart(exporter))?.up, true);
  startWorker('steady@localhost');
  await waitFor(
    'the worker online',
    async () =>
      (await exporter.scrape()).value('acktrail_celery_worker_up', {
        worker: 'steady@localhost',
      }) === 1,
    { timeoutMs: 60_000 },
  );
});

test('two replicas: one subscribes, each event is counted once; the other takes over', async () => {
  // A database of their own, without workers: only the events published here.
  const url = `redis://127.0.0.1:${PORT}/2`;
  const replica = () =>
    TestExporter.start(
      { ACKTRAIL_API_TOKEN: TOKEN },
      {
        rabbitmq: { enabled: false },
        journeys: { enabled: false },
        celery: { enabled: true, url, redis: { leaseSeconds: 2 } },
      },
    );
  const [a, b] = [await replica(), await replica()];
  try {
    await waitFor('one replica subscribed', () => subscribed(a) + subscribed(b) === 1);
    const heartbeat = (i: number) =>
      client.publish(
        '/2.celeryev/worker.heartbeat',
        envelope(
          { type: 'worker-heartbeat', hostname: `w${i}@h`, freq: 2, timestamp: Date.now() / 1000 },
          'celeryev',
          'worker.heartbeat',
        ),
      );
    const count = async (e: TestExporter) =>
      (await e.scrape()).value('acktrail_celery_events_total', { type: 'worker-heartbeat' }) ?? 0;
    for (let i = 0; i < 20; i++) await heartbeat(i);
    await waitFor('20 heartbeats counted', async () => (await count(a)) + (await count(b)) === 20);
    // Still 20 a moment later: nobody counts twice.
    await waitFor('a scrape of both after the last event', async () => {
      const both = (await count(a)) + (await count(b));
      assert.equal(both, 20);
      return true;
    });
    const [leader, standby] = subscribed(a) ? [a, b] : [b, a];
    await leader.close();
    await waitFor('the standby subscribed', () => subscribed(standby) === 1, {
      timeoutMs: 20_000,
    });
    const before = await count(standby);
    for (let i = 0; i < 5; i++) await heartbeat(i);
    await waitFor('5 more counted by the new subscriber', async () => {
      return (await count(standby)) === before + 5;
    });
  } finally {
    await a.close();
    await b.close();
  }
});

test('a lease key set for good by something else (a squatter on a shared Redis) is taken, and said', async () => {
  const db = 4;
  const squatter = new Redis(PORT, '127.0.0.1', { db, lazyConnect: true, maxRetriesPerRequest: 1 });
  squatter.on('error', () => undefined);
  await squatter.connect();
  const key = 'tenant-a.acktrail.subscriber';
  await squatter.set(key, 'squatted'); // no expiry: no replica of acktrail writes that
  await squatter.set('acktrail.celery.subscriber', 'squatted');
  const e = await TestExporter.start(
    { ACKTRAIL_API_TOKEN: TOKEN },
    {
      rabbitmq: { enabled: false },
      journeys: { enabled: false },
      celery: {
        enabled: true,
        url: `redis://127.0.0.1:${PORT}/${db}`,
        redis: { leaseSeconds: 2, leaseKey: key },
      },
    },
  );
  try {
    await waitFor('it subscribed despite the squatter', () => subscribed(e) === 1);
    assert.ok(
      e.logs.some((l) =>
        /took the Redis subscriber lease from a key set by something else/.test(l.msg),
      ),
      'and said so',
    );
    assert.notEqual(await squatter.get(key), 'squatted');
    assert.ok((await squatter.pttl(key)) > 0, 'its own lease expires');
    assert.equal(
      await squatter.get('acktrail.celery.subscriber'),
      'squatted',
      'the configured key only',
    );
  } finally {
    await e.close();
    squatter.disconnect();
  }
});

test('queue lengths equal LLEN with the priority lists; nobody consumes `idle`', async () => {
  await send('idle', '7', '4');
  const lists = ['idle', 'idle\x06\x163', 'idle\x06\x166', 'idle\x06\x169'];
  const llen = async () =>
    (await Promise.all(lists.map((k) => client.llen(k)))).reduce((a, b) => a + b, 0);
  assert.equal(await client.llen('idle\x06\x166'), 4, 'priority 6 has a list of its own');
  assert.equal(await llen(), 11);
  await waitFor(
    'acktrail_celery_queue_length{queue="idle"} 11',
    async () =>
      (await exporter.scrape()).value('acktrail_celery_queue_length', { queue: 'idle' }) === 11,
    { timeoutMs: 20_000 },
  );
});

test('a worker killed mid-task: the message waits out the visibility timeout, another worker runs it, the journey and a counter say so', async () => {
  // The steady worker stops: the killed worker is the only one that can take the task.
  for (const w of workers) await stopWorker(w);
  const first = startWorker('doomed@localhost');
  const [id] = (await send('slow')) as [string];
  await waitFor(
    'the task started on the doomed worker',
    async () => {
      const j = await journey(id);
      return j?.celery?.state === 'STARTED' && j.celery.worker === 'doomed@localhost';
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  // Reserved and unacknowledged: in kombu's unacked hash, as acktrail reports it.
  await waitFor('unacked equal to HLEN unacked', async () => {
    const s = await exporter.scrape();
    const hlen = await client.hlen('unacked');
    return hlen === 1 && s.value('acktrail_celery_unacked_tasks') === hlen;
  });
  await stopWorker(first, 'SIGKILL');
  await waitFor(
    'the message older than the visibility timeout',
    async () =>
      ((await exporter.scrape()).value('acktrail_celery_unacked_oldest_age_seconds') ?? 0) >
      VISIBILITY_S,
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  // A worker that starts restores what waited longer than the visibility timeout, and runs it.
  startWorker('rescuer@localhost');
  const done = await waitFor(
    'the task succeeded on the rescuer',
    async () => {
      const j = await journey(id);
      return j?.celery?.state === 'SUCCESS' ? j : null;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  assert.ok(done.kinds.includes('redelivered'), done.kinds.join(', '));
  const task = done.celery;
  assert.ok(task);
  assert.equal(task.redeliveries, 1);
  assert.equal(task.worker, 'rescuer@localhost');
  const starts = task.states.filter((s) => s.state === 'STARTED');
  assert.deepEqual(
    starts.map((s) => s.worker),
    ['doomed@localhost', 'rescuer@localhost'],
  );
  const s = await exporter.scrape();
  assert.equal(
    s.value('acktrail_celery_task_redeliveries_total', { task: 'tasks.slow', queue: 'celery' }),
    1,
  );
  assert.equal(await client.hlen('unacked'), 0);
});

test('Redis restarted under load: /metrics answers throughout, the gap is said, events flow again', async () => {
  const load = send('load', '12');
  const events = async () =>
    (await exporter.scrape()).value('acktrail_celery_events_total', { type: 'task-succeeded' }) ??
    0;
  await waitFor('tasks flowing', async () => (await events()) > 0, { timeoutMs: 30_000 });
  const reconnectsBefore =
    (await exporter.scrape()).value('acktrail_celery_broker_reconnects_total') ?? 0;
  await redis.stop();
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${exporter.url}/metrics`);
    assert.equal(res.status, 200, 'while Redis is down');
    await res.arrayBuffer();
  }
  await redis.start();
  await load;
  // The exporter must come back by itself; a Celery worker's own reconnection is Celery's
  // business: a fresh worker and a little more load make the events after the restart.
  for (const w of workers) await stopWorker(w, 'SIGKILL');
  startWorker('after@localhost');
  const before = await events();
  await send('load', '3');
  let last = '';
  await waitFor(
    'the subscription back, and tasks counted after it',
    async () => {
      const s = await exporter.scrape();
      const now = [
        s.value('acktrail_celery_broker_reconnects_total') ?? 0,
        s.value('acktrail_celery_events_total', { type: 'task-succeeded' }) ?? 0,
      ] as const;
      last = `reconnects ${now[0]} (before ${reconnectsBefore}), task-succeeded ${now[1]} (before ${before})`;
      return now[0] > reconnectsBefore && now[1] > before;
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  ).catch((err: unknown) => {
    const logs = exporter.logs.filter((l) => l.msg.startsWith('celery'));
    throw new Error(`${(err as Error).message}: ${last}; ${JSON.stringify(logs)}`);
  });
  const part = await celeryPart(exporter);
  assert.ok(part);
  assert.equal(part.up, true);
  assert.match(part.note ?? '', /were not heard \(Redis pub\/sub keeps nothing\)/);
});

test("through a Redis Sentinel: sentinel:// with the master's name, as Celery has it", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-sentinel-'));
  const conf = join(dir, 'sentinel.conf');
  const SENTINEL_PORT = 26391;
  // The sentinel rewrites its file: one of its own.
  writeFileSync(
    conf,
    `port ${SENTINEL_PORT}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor acktrail 127.0.0.1 ${PORT} 1\n`,
  );
  const sentinel = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
  const url = `sentinel://127.0.0.1:${SENTINEL_PORT}/3`;
  let viaSentinel: TestExporter | null = null;
  try {
    viaSentinel = await TestExporter.start(
      { ACKTRAIL_API_TOKEN: TOKEN },
      {
        rabbitmq: { enabled: false },
        journeys: { enabled: false },
        celery: { enabled: true, url, redis: { masterName: 'acktrail' } },
      },
    );
    const e = viaSentinel;
    await waitFor('subscribed through the sentinel', () => subscribed(e) === 1, {
      timeoutMs: 30_000,
    });
    startWorker('sentinel@localhost', { CELERY_BROKER_URL: url, CELERY_MASTER_NAME: 'acktrail' });
    await waitFor(
      'the worker online, its heartbeats through the master the sentinel names',
      async () =>
        (await e.scrape()).value('acktrail_celery_worker_up', { worker: 'sentinel@localhost' }) ===
        1,
      { timeoutMs: 60_000 },
    );
  } finally {
    await viaSentinel?.close();
    sentinel.kill('SIGKILL');
    await once(sentinel, 'exit');
  }
});

test('stopped while it takes the lease: nothing subscribes after, no connection is left', async () => {
  // A database of its own: the file's exporter holds connections on db 0.
  const DB = 5;
  const clientsOfDb = async () =>
    String(await client.client('LIST'))
      .split('\n')
      .filter((l) => / name=acktrail-/.test(l) && l.includes(` db=${DB} `));
  // Writes paused, the exporter's lease (a script that SETs) waits in Redis, not in acktrail.
  await client.client('PAUSE', 60_000, 'WRITE');
  let e: TestExporter | null = null;
  try {
    e = await TestExporter.start(
      { ACKTRAIL_API_TOKEN: TOKEN },
      {
        rabbitmq: { enabled: false },
        journeys: { enabled: false },
        celery: {
          enabled: true,
          url: `redis://127.0.0.1:${PORT}/${DB}`,
          redis: { leaseSeconds: 3 },
        },
      },
    );
    await waitFor('its lease script blocked by the pause', async () =>
      (await clientsOfDb()).some((l) => / flags=b .* cmd=eval /.test(l)),
    );
    const closing = e.close();
    await client.client('UNPAUSE');
    await closing;
  } finally {
    await client.client('UNPAUSE');
    await e?.close();
  }
  // The lease came back after the exporter stopped: had it acted on it, an events connection
  // would be here now, reconnecting for ever.
  await waitFor(
    'none of the stopped exporter connections left',
    async () => (await clientsOfDb()).length === 0,
  );
  assert.equal(subscribed(e), 0, 'it subscribed after it was stopped');
});
