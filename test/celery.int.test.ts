// A real Celery 5 worker (Debian's python3-celery, run with /usr/bin/python3) with events on
// (-E), results in Redis, on each broker Celery teams run: the local RabbitMQ (a vhost of its
// own) and Redis (a database of its own, events over pub/sub). It runs a chain, a group, a chord, a task that
// retries and one that fails (test/celery/run_workflows.py, which prints what Celery itself
// reports); acktrail's journeys and metrics must say the same, and the dashboard's overview shows
// its Celery section (Chromium, with a real Prometheus scraping the exporter).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { REPO_ROOT, cleanUp, createTestVhost, waitFor, TestPrometheus } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import type { Journey } from '@acktrail/exporter';
import { launchChromium, startDashboard } from '../dashboard/test/server.js';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { envelope } from '@acktrail/exporter/testing/celery';
import { panelQueries } from './grafana-queries.js';

const TOKEN = 'celery-test-token-0123456789';
const DIR = join(REPO_ROOT, 'test', 'celery');
const PYTHON = '/usr/bin/python3';
const WORKER = 'acktrail-test@localhost';

interface CeleryReport {
  tasks: {
    id: string;
    name: string;
    state: string;
    retries: number;
    worker: string;
    queue: string;
  }[];
  chain: string[];
  group: string[];
  chord: { header: string[]; body: string };
  retried: string;
  failed: string;
  revoked: { id: string; state: string };
  rejected: string;
}

/** A Celery broker for one run of the tests: where it is, and how to put a raw event on it. */
interface Broker {
  name: string;
  /** The result backend (a Redis database of its own per broker). */
  backend: string;
  setup: () => Promise<{ url: string; drop: () => Promise<void> }>;
  /** Puts `body` on the event exchange with `routingKey`, as a worker would. */
  publish: (url: string, routingKey: string, body: Buffer) => Promise<void>;
}

const RABBITMQ: Broker = {
  name: 'RabbitMQ',
  backend: 'redis://127.0.0.1:6379/9',
  setup: async () => {
    const vhost = await createTestVhost();
    return { url: vhost.url, drop: () => vhost.drop() };
  },
  publish: async (url, routingKey, body) => {
    const conn = await amqp.connect(url);
    const ch = await conn.createConfirmChannel();
    // As Celery sends it: the worker's own gossip reads worker.* events, and without a content
    // type kombu hands it a string, which stops the worker.
    ch.publish('celeryev', routingKey, body, {
      contentType: 'application/json',
      contentEncoding: 'utf-8',
    });
    await ch.waitForConfirms();
    await conn.close();
  },
};

/** This file's own Redis database (the other Redis user, the dashboard's tests, take others). */
const REDIS_DB = 12;
const REDIS: Broker = {
  name: 'Redis',
  backend: 'redis://127.0.0.1:6379/13',
  setup: async () => {
    const url = `redis://127.0.0.1:6379/${REDIS_DB}`;
    const flush = async () => {
      const r = new Redis(url);
      await r.flushdb();
      r.disconnect();
    };
    await flush();
    return { url, drop: flush };
  },
  publish: async (url, routingKey, body) => {
    const r = new Redis(url);
    // kombu's envelope, with the body as it is (a broken body stays broken inside it).
    const env = JSON.parse(envelope(null, 'celeryev', routingKey)) as { body: string };
    env.body = body.toString('base64');
    await r.publish(`/${REDIS_DB}.celeryev/${routingKey}`, JSON.stringify(env));
    r.disconnect();
  },
};

for (const broker of [RABBITMQ, REDIS])
  describe(`Celery on ${broker.name}`, () => {
    celeryTests(broker);
  });

function celeryTests(broker: Broker): void {
  let brokerUrl: string;
  let dropBroker: () => Promise<void>;
  let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
  let worker: ChildProcess;
  let report: CeleryReport;
  let prometheus: TestPrometheus;
  const journeys = new Map<string, Journey>();

  function celeryEnv(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      CELERY_BROKER_URL: brokerUrl,
      CELERY_RESULT_BACKEND: broker.backend,
      PYTHONDONTWRITEBYTECODE: '1',
    };
  }

  async function journey(id: string): Promise<Journey | null> {
    const res = await fetch(`${exporter.url}/api/events/${id}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return res.ok ? ((await res.json()) as Journey) : null;
  }

  async function metric(name: string, labels: Record<string, string> = {}) {
    return (await exporter.scrape()).value(name, labels);
  }

  /** The workflows of test/celery/run_workflows.py, run once more; what Celery reports of them. */
  async function runWorkflows(): Promise<CeleryReport> {
    const client = spawn(PYTHON, ['run_workflows.py'], {
      cwd: DIR,
      env: celeryEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    client.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const [code] = (await once(client, 'exit')) as [number];
    assert.equal(code, 0, 'run_workflows.py');
    return JSON.parse(out) as CeleryReport;
  }

  before(async () => {
    ({ url: brokerUrl, drop: dropBroker } = await broker.setup());
    exporter = await TestExporter.withStore(
      { ACKTRAIL_API_TOKEN: TOKEN },
      { celery: { enabled: true, url: brokerUrl } },
    );
    await waitFor('the celery consumer', () =>
      exporter.logs.some(
        (l) =>
          l.msg === 'celery: consuming events' ||
          l.msg === 'celery: subscribed to the Redis event channel',
      ),
    );
    // Scraping from the start, so that the task counters are seen rising.
    prometheus = await TestPrometheus.start({ acktrail: exporter.url });
    worker = spawn(
      PYTHON,
      ['-m', 'celery', '-A', 'tasks', 'worker', '-E', '-c', '2', '-n', WORKER, '-l', 'warning'],
      { cwd: DIR, env: celeryEnv(), stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await waitFor(
      'the worker online',
      async () => (await metric('acktrail_celery_workers_online')) === 1,
      {
        timeoutMs: 60_000,
      },
    );
    report = await runWorkflows();
    for (const t of report.tasks)
      journeys.set(
        t.id,
        await waitFor(
          `the journey of ${t.name} ${t.id} in state ${t.state}`,
          async () => {
            const j = await journey(t.id);
            return j?.celery?.state === t.state ? j : null;
          },
          { timeoutMs: 30_000, intervalMs: 100 },
        ),
      );
  });

  after(() =>
    cleanUp(
      async () => {
        if (worker.exitCode === null && worker.signalCode === null) {
          worker.kill('SIGKILL');
          await once(worker, 'exit');
        }
      },
      () => prometheus.close(),
      () => exporter.close(),
      () => dropBroker(),
    ),
  );

  test('every task: the same name, final state, worker and retry count as Celery reports', () => {
    assert.equal(report.tasks.length, 12);
    for (const t of report.tasks) {
      const c = journeys.get(t.id)!.celery!;
      assert.equal(c.name, t.name, t.id);
      assert.equal(c.state, t.state, t.id);
      assert.equal(c.worker, t.worker, t.id);
      assert.equal(c.queue, t.queue, t.id);
      assert.equal(c.retries.length, t.retries, `${t.name} retries`);
    }
  });

  test("a revoked task and one the worker rejects: their journeys end in Celery's final states", async () => {
    assert.equal(report.revoked.state, 'REVOKED', "Celery's backend");
    for (const [id, state, kind] of [
      [report.revoked.id, 'REVOKED', 'task_revoked'],
      [report.rejected, 'REJECTED', 'task_rejected'],
    ] as const) {
      const j = await waitFor(
        `the journey of ${id} in state ${state}`,
        async () => {
          const found = await journey(id);
          return found?.celery?.state === state ? found : null;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      assert.ok(j.kinds.includes(kind), j.kinds.join(', '));
    }
    const s = await exporter.scrape();
    assert.equal(
      s.value('acktrail_celery_tasks_total', {
        task: 'tasks.add',
        queue: 'celery',
        state: 'revoked',
      }),
      1,
    );
    assert.equal(
      s.value('acktrail_celery_tasks_total', {
        task: 'tasks.refuse',
        queue: 'celery',
        state: 'rejected',
      }),
      1,
    );
  });

  test('the task that retried: each retry with its exception and countdown, then success', () => {
    const j = journeys.get(report.retried)!;
    const c = j.celery!;
    assert.equal(c.state, 'SUCCESS');
    assert.deepEqual(j.kinds, ['retried', 'task_succeeded']);
    assert.equal(c.retries.length, 2);
    for (const r of c.retries) {
      assert.equal(r.exception, "RuntimeError('provider 503')");
      assert.ok(r.eta, 'the retry has an eta');
      assert.ok(r.countdownMs !== null && r.countdownMs > 0, 'a countdown');
    }
    assert.match(j.verdict, /^tasks\.flaky succeeded on acktrail-test@localhost after 2 retries/);
    // Celery reports a retry after the worker has already received the re-sent task, so count the
    // states rather than expect an order.
    const states = c.states.map((s) => s.state).filter((s) => s !== 'PENDING');
    const tally = (state: string) => states.filter((s) => s === state).length;
    assert.deepEqual(['RECEIVED', 'STARTED', 'RETRY', 'SUCCESS'].map(tally), [3, 3, 2, 1]);
    assert.equal(states.at(-1), 'SUCCESS');
  });

  test('the failed task: its exception and a traceback summary, no arguments', () => {
    const j = journeys.get(report.failed)!;
    assert.deepEqual(j.kinds, ['task_failed']);
    assert.equal(j.celery!.exception, "ValueError('bad value 3')");
    assert.match(
      j.celery!.traceback ?? '',
      /^ValueError: bad value 3 \(at ".*tasks\.py", line \d+, in boom;/,
    );
    assert.match(j.verdict, /tasks\.boom failed on acktrail-test@localhost: ValueError/);
  });

  test('the chain: each link names the one before it and the one after it', () => {
    const [a, b, c] = report.chain as [string, string, string];
    const link = (id: string) => journeys.get(id)!.celery!.workflow;
    assert.equal(link(a).parent, null);
    assert.deepEqual(
      link(a).children.map((t) => t.taskId),
      [b],
    );
    assert.equal(link(b).parent?.taskId, a);
    assert.deepEqual(
      link(b).children.map((t) => t.taskId),
      [c],
    );
    assert.equal(link(c).parent?.taskId, b);
    assert.equal(link(c).rootId, a, 'the chain is one workflow, rooted at its first task');
    assert.deepEqual(
      link(c)
        .tasks.map((t) => t.taskId)
        .sort(),
      [a, b, c].sort(),
      'the workflow lists every link',
    );
  });

  test("the chord: its callback names the header task that completed it, in the header's workflow", () => {
    const body = journeys.get(report.chord.body)!.celery!;
    assert.equal(body.state, 'SUCCESS');
    const parent = body.workflow.parent;
    assert.ok(parent && report.chord.header.includes(parent.taskId), 'triggered by a header task');
    assert.equal(parent.state, 'SUCCESS');
    const trigger = journeys.get(parent.taskId)!.celery!;
    assert.deepEqual(
      trigger.workflow.children.map((t) => t.taskId),
      [report.chord.body],
      'the header task shows the callback it completed',
    );
  });

  test('group members stand alone: Celery gives them no common id in its events', () => {
    for (const id of report.group) {
      const w = journeys.get(id)!.celery!.workflow;
      assert.equal(w.rootId, id);
      assert.equal(w.parent, null);
    }
  });

  test('the metrics count what Celery did, by task name and queue', async () => {
    const byName = (name: string, state: string) =>
      report.tasks.filter((t) => t.name === name && t.state === state).length;
    // The queue's length is read from the broker every 5 s: wait for its first reading.
    const s = await waitFor('the celery queue length measured', async () => {
      const scrape = await exporter.scrape();
      return scrape.value('acktrail_celery_queue_length', { queue: 'celery' }) === undefined
        ? null
        : scrape;
    });
    const count = (task: string, state: string) =>
      s.value('acktrail_celery_tasks_total', { task, queue: 'celery', state });
    assert.equal(count('tasks.add', 'succeeded'), byName('tasks.add', 'SUCCESS'));
    assert.equal(count('tasks.tsum', 'succeeded'), 1);
    assert.equal(count('tasks.boom', 'failed'), 1);
    assert.equal(count('tasks.flaky', 'retried'), 2);
    assert.equal(count('tasks.flaky', 'succeeded'), 1);
    assert.equal(count('tasks.flaky', 'started'), 3);
    assert.equal(
      s.histogram('acktrail_celery_task_runtime_seconds', { task: 'tasks.add' }).count,
      byName('tasks.add', 'SUCCESS'),
    );
    assert.equal(
      s.histogram('acktrail_celery_task_queue_wait_seconds', { task: 'tasks.flaky' }).count,
      3,
      'one wait per start',
    );
    assert.equal(s.value('acktrail_celery_worker_up', { worker: WORKER }), 1);
    assert.equal(s.value('acktrail_celery_queue_length', { queue: 'celery' }), 0);
    for (const line of s.text.split('\n').filter((l) => l.startsWith('acktrail_celery')))
      for (const t of report.tasks) assert.ok(!line.includes(t.id), 'no task id in a label');
  });

  test('bad or unknown events are counted and skipped; the stream goes on', async () => {
    const before =
      (await metric('acktrail_celery_events_total', { type: 'worker-heartbeat' })) ?? 0;
    await broker.publish(brokerUrl, 'task.bad', Buffer.from('{not json'));
    await broker.publish(
      brokerUrl,
      'task.new',
      Buffer.from(JSON.stringify({ type: 'task-teleported', uuid: 'x', timestamp: 1 })),
    );
    await broker.publish(
      brokerUrl,
      'worker.heartbeat',
      Buffer.from(
        JSON.stringify({
          type: 'worker-heartbeat',
          hostname: WORKER,
          freq: 2,
          active: 0,
          timestamp: Date.now() / 1000,
        }),
      ),
    );
    await waitFor('the skipped events counted', async () => {
      const s = await exporter.scrape();
      return (
        s.value('acktrail_celery_events_skipped_total', { reason: 'malformed' }) === 1 &&
        s.value('acktrail_celery_events_skipped_total', { reason: 'unknown_type' }) === 1 &&
        (s.value('acktrail_celery_events_total', { type: 'worker-heartbeat' }) ?? 0) > before
      );
    });
  });

  test("the dashboard's page of the retried task shows its retries and its workflow", async () => {
    const dashboard = await startDashboard({
      ACKTRAIL_API_URL: exporter.url,
      ACKTRAIL_API_TOKEN: TOKEN,
      DASHBOARD_AUTH: 'none',
    });
    try {
      const page = (id: string) =>
        waitFor(`the dashboard page of ${id}`, async () => {
          const res = await fetch(`${dashboard.url}/events/${id}`).catch(() => null);
          return res?.status === 200 ? await res.text() : null;
        });
      const retried = await page(report.retried);
      assert.match(retried, /data-testid="celery"/);
      assert.match(retried, /tasks\.flaky/);
      assert.match(retried, /RuntimeError\(&#x27;provider 503&#x27;\)/);
      assert.equal(retried.match(/<tr><td>\d<\/td>/g)?.length, 2, 'two retries listed');
      const [a, b] = report.chain as [string, string];
      const second = await page(b);
      assert.match(second, new RegExp(`sent by <a href="/events/${a}">`));
    } finally {
      await dashboard.close();
    }
  });

  test('the overview shows its Celery section with a real worker running', async () => {
    // The first run's tasks created their series: the first samples of a series make no rate().
    // A second run, with every series there, makes the rates and quantiles the charts draw.
    await runWorkflows();
    await prometheus.waitForSeries(
      'histogram_quantile(0.5, sum by (le) (rate(acktrail_celery_task_runtime_seconds_bucket[1m]))) >= 0',
    );
    await prometheus.waitForSeries('acktrail_celery_workers_online == 1');
    const dashboard = await startDashboard({
      ACKTRAIL_API_URL: exporter.url,
      ACKTRAIL_API_TOKEN: TOKEN,
      PROMETHEUS_URL: prometheus.url,
      DASHBOARD_AUTH: 'none',
    });
    const browser = await launchChromium();
    try {
      const pg = await browser.newPage({ viewport: { width: 1366, height: 900 } });
      pg.setDefaultTimeout(20_000);
      const celery = pg.getByTestId('celery');
      const line = (chart: string) =>
        celery.getByTestId(`chart-${chart}`).locator('.recharts-line-curve').first();
      // The page reads Prometheus when it is rendered: reload until the rates' first points, a
      // scrape or two after the tasks, are in the range.
      await waitFor(
        'the Celery charts drawn',
        async () => {
          await pg.goto(`${dashboard.url}/?range=15m`);
          await celery.waitFor();
          await pg
            .getByTestId('chart-celery-workers')
            .locator('.recharts-line-curve')
            .first()
            .waitFor({ state: 'attached' });
          return (await line('celery-tasks').count()) > 0;
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      );
      for (const chart of ['celery-tasks', 'celery-workers'])
        assert.match(
          (await line(chart).getAttribute('d')) ?? '',
          /^M[\d.]+,[\d.]+/,
          `${chart} drawn`,
        );
      const legend = await celery
        .getByTestId('chart-celery-tasks')
        .locator('.chart-legend')
        .innerText();
      assert.match(legend, /succeeded/);
      assert.match(legend, /failed/);
      await pg.screenshot({
        path: join(REPO_ROOT, '.artifacts', 'dashboard', 'celery.png'),
        fullPage: true,
      });
    } finally {
      await browser.close();
      await dashboard.close();
    }
  });

  test('every panel of the Celery Grafana dashboard has data, and every metric a Celery alert names exists', async () => {
    const end = Date.now() / 1000;
    for (const { where, query } of panelQueries(['celery.json'], { task: '.+' }))
      await waitFor(`${where}: ${query}`, () => prometheus.hasPoints(query, end - 900, end), {
        timeoutMs: 30_000,
        intervalMs: 500,
      });
    const rules = parse(
      readFileSync(join(REPO_ROOT, 'prometheus/rules/acktrail.rules.yml'), 'utf8'),
    ) as { groups: { name: string; rules: { alert: string; expr: string }[] }[] };
    const celery = rules.groups.find((g) => g.name === 'acktrail.celery')!.rules;
    assert.equal(celery.length, 6);
    for (const rule of celery) {
      await prometheus.query(rule.expr); // throws if Prometheus refuses it
      for (const [name] of rule.expr.matchAll(/\backtrail_[a-z_]+\b/g)) {
        const family = name.replace(/_bucket$/, '');
        const found = await prometheus.query(`count({__name__=~"${family}(_bucket)?"})`);
        assert.ok(found.length > 0, `${rule.alert}: no series named ${name}`);
      }
    }
  });

  test('a worker that stops goes offline', async () => {
    worker.kill('SIGTERM');
    await once(worker, 'exit');
    await waitFor('worker-offline', async () => {
      const s = await exporter.scrape();
      return (
        s.value('acktrail_celery_workers_online') === 0 &&
        s.value('acktrail_celery_worker_up', { worker: WORKER }) === 0
      );
    });
  });

  // A worker without -E sends its own heartbeats anyway, never task events: those come once
  // acktrail has asked. The test's exporter is the only one listening (on Redis, the first
  // exporter would hold the subscriber's lease), and the quiet worker the only worker.
  test('a worker started without -E sends task events once acktrail asks it to (enable_events)', async () => {
    await exporter.close();
    const asking = await TestExporter.start(
      { ACKTRAIL_API_TOKEN: TOKEN },
      {
        rabbitmq: { enabled: false },
        journeys: { enabled: false },
        celery: {
          enabled: true,
          url: brokerUrl,
          queue: 'acktrail.celery.asking',
          enableEventsIntervalSeconds: 1,
        },
      },
    );
    const quiet = spawn(
      PYTHON,
      [
        '-m',
        'celery',
        '-A',
        'tasks',
        'worker',
        '-c',
        '1',
        '-n',
        'quiet@localhost',
        '-l',
        'warning',
      ],
      { cwd: DIR, env: celeryEnv(), stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const succeeded = async () =>
      (await asking.scrape()).value('acktrail_celery_tasks_total', {
        task: 'tasks.add',
        queue: 'celery',
        state: 'succeeded',
      }) ?? 0;
    try {
      await waitFor(
        'the quiet worker online',
        async () =>
          (await asking.scrape()).value('acktrail_celery_worker_up', {
            worker: 'quiet@localhost',
          }) === 1,
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      // One task at a time until the worker has been asked: then its task events arrive.
      await waitFor(
        'task events from the quiet worker',
        async () => {
          const client = spawn(PYTHON, ['run_one.py'], {
            cwd: DIR,
            env: celeryEnv(),
            stdio: ['ignore', 'ignore', 'inherit'],
          });
          const [code] = (await once(client, 'exit')) as [number];
          assert.equal(code, 0, 'run_one.py');
          return (await succeeded()) > 0;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
    } finally {
      quiet.kill('SIGKILL');
      await once(quiet, 'exit');
      await asking.close();
    }
  });
}
