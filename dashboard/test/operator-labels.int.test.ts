// Two exporter replicas scraped by a real Prometheus as prometheus-operator scrapes the shipped
// ServiceMonitor (test/operator.ts gives each target the operator's job, namespace, service, pod,
// endpoint, container and instance labels). Both replicas read the same broker, so every figure
// a rule, a Grafana panel or the overview shows must be one replica's value, never the two added:
// each query is evaluated at one instant over both replicas and over each replica alone (a `pod`
// matcher added to every acktrail series), and every series it returns lies between the replicas'
// own values. Then AcktrailExporterDown's expression names the stopped replica, and
// AcktrailExporterAbsent's returns a series on a Prometheus that scrapes no exporter at all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import amqp from 'amqplib';
import { parse } from 'yaml';
import {
  REPO_ROOT,
  createTestVhost,
  waitFor,
  type TestVhost,
  TestPrometheus,
  type PromSeries,
} from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { operatorLabels } from '../../test/operator';
import { dashboardFiles, panelQueries } from '../../test/grafana-queries';
import { DEFAULTS } from '../../prometheus/mixin/params';
import { overviewCharts, PROBLEMS } from '../lib/charts/overview';

const WORK = 'orders.work';
const READY = 7;
/** The dashboards' variables: every vhost, queue and task. */
const VARIABLES = { vhost: '.+', queue: WORK, task: '.+' };

let vhost: TestVhost;
let replicas: TestExporter[] = [];
let pods: string[] = [];
let prometheus: TestPrometheus;

before(async () => {
  vhost = await createTestVhost();
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue(WORK, { durable: true });
  await ch.assertQueue('orders.dlq', { durable: true });
  for (let i = 0; i < READY; i++) ch.sendToQueue(WORK, Buffer.from('{}'));
  for (let i = 0; i < 3; i++) ch.sendToQueue('orders.dlq', Buffer.from('{}'));
  await ch.waitForConfirms();
  await conn.close();
  replicas = await Promise.all(
    [0, 1].map(() =>
      TestExporter.start(
        {},
        {
          rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 },
          journeys: { enabled: false },
        },
      ),
    ),
  );
  const targets = replicas.map((r, i) => {
    const labels = operatorLabels(i, new URL(r.url).host);
    return { url: r.url, labels };
  });
  pods = targets.map((t) => t.labels.pod!);
  prometheus = await TestPrometheus.start({
    'serviceMonitor/acktrail/acktrail-exporter/0': targets,
  });
  await waitFor(
    'both replicas report the work queue',
    async () =>
      (await prometheus.query(`acktrail_queue_messages_ready{queue="${WORK}"} == ${READY}`))
        .length === 2,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  // Five scrapes of each: rates over a minute have points to work with.
  await waitFor(
    'five scrapes of each replica',
    async () => (await prometheus.query('min(count_over_time(up[1m])) >= 5')).length === 1,
    { timeoutMs: 60_000, intervalMs: 500 },
  );
});

/** Now, as an instant every query of one comparison is evaluated at (unix seconds). */
const now = () => Date.now() / 1000;

after(async () => {
  await prometheus.close();
  for (const r of replicas) await r.close();
  await vhost.drop();
});

/** `query` with `pod="<pod>"` added to every acktrail series it selects. */
function onePod(query: string, pod: string): string {
  return query.replace(
    /\b(acktrail_[a-zA-Z0-9_]+)(\{([^}]*)\})?/g,
    (_, name: string, _braces: string | undefined, inner: string | undefined) =>
      `${name}{pod="${pod}"${inner?.trim() ? `, ${inner}` : ''}}`,
  );
}

const key = (s: PromSeries) =>
  JSON.stringify(Object.entries(s.metric).sort(([a], [b]) => a.localeCompare(b)));

/**
 * Evaluates `query` at `time` over both replicas and over each alone; returns what is wrong (a
 * series outside its replicas' values) and how many series had replicas to compare with.
 */
async function check(query: string, time: number) {
  const merged = await prometheus.query(query, time);
  const alone = await Promise.all(pods.map((pod) => prometheus.query(onePod(query, pod), time)));
  const wrong: string[] = [];
  let compared = 0;
  for (const s of merged) {
    const own = alone.flatMap((r) => r.filter((x) => key(x) === key(s))).map((x) => +x.value[1]);
    if (!own.length) continue;
    compared++;
    const v = +s.value[1];
    const [lo, hi] = [Math.min(...own), Math.max(...own)];
    if (!(v >= lo - 1e-9 && v <= hi + 1e-9) && !(Number.isNaN(v) && own.some(Number.isNaN)))
      wrong.push(`${query}\n    ${key(s)} = ${v}, each replica alone: ${own.join(', ')}`);
  }
  return { wrong, compared };
}

interface Rule {
  alert: string;
  expr: string;
}
const alertRules = (): Rule[] =>
  (
    parse(readFileSync(join(REPO_ROOT, 'prometheus/rules/acktrail.rules.yml'), 'utf8')) as {
      groups: { rules: Rule[] }[];
    }
  ).groups.flatMap((g) => g.rules);

function overviewQueries(): string[] {
  return overviewCharts(30).flatMap((c) => c.queries.map((q) => q.expr.replaceAll('$rw', '1m')));
}

test('every rule, Grafana panel and overview query gives one replica’s value, not the sum', async () => {
  const time = now();
  const queries = [
    ...alertRules().map((r) => r.expr),
    ...panelQueries(dashboardFiles(), VARIABLES).map((q) => q.query),
    ...overviewQueries(),
  ];
  let compared = 0;
  const wrong: string[] = [];
  for (const q of queries) {
    const r = await check(q, time);
    compared += r.compared;
    wrong.push(...r.wrong);
  }
  assert.deepEqual(wrong, [], 'figures that count a replica twice');
  assert.ok(compared >= 20, `${compared} series compared with their replicas`);

  // The overview's ready chart shows the queue's own count, and the problems strip's
  // "consumers down" names it once.
  const ready = overviewQueries().find((q) => q.includes('acktrail_queue_messages_ready)'))!;
  const work = (await prometheus.query(ready, time)).filter((s) => s.metric.queue === WORK);
  assert.deepEqual(
    work.map((s) => +s.value[1]),
    [READY],
  );
  const consumersDown = alertRules().find((r) => r.alert === 'AcktrailConsumersDown')!;
  assert.ok(PROBLEMS.some((p) => (p.alerts as readonly string[]).includes(consumersDown.alert)));
  const down = await prometheus.query(consumersDown.expr, time);
  assert.deepEqual(
    down.filter((s) => s.metric.queue === WORK).map((s) => +s.value[1]),
    [READY],
  );
});

test('the check sees a doubled figure: merged without (instance) alone, the work queue counts twice', async () => {
  // What the dashboards were before the replica merge named pod: `max without (instance)`.
  const old = panelQueries(dashboardFiles(), VARIABLES, {
    ...DEFAULTS,
    replicaLabels: ['instance'],
  });
  const time = now();
  let doubled = 0;
  for (const { query } of old) {
    const { wrong } = await check(query, time);
    const series = (await prometheus.query(query, time)).filter((s) => s.metric.queue === WORK);
    // Added up (a value between no replica's), or drawn once per pod.
    if (wrong.length || series.filter((s) => s.metric.pod !== undefined).length === 2) doubled++;
  }
  assert.ok(doubled > 0, 'some old panel query adds the replicas up or draws each');
});

test('AcktrailExporterDown names the stopped replica; AcktrailExporterAbsent fires with no target', async () => {
  const rules = alertRules();
  const down = rules.find((r) => r.alert === 'AcktrailExporterDown')!;
  await replicas[1]!.close();
  const series = await waitFor(
    'the stopped replica scraped as down',
    async () => {
      const r = await prometheus.query(down.expr);
      return r.length ? r : null;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  assert.deepEqual(
    series.map((s) => [s.metric.job, s.metric.pod]),
    [['acktrail', pods[1]]],
  );

  const absent = rules.find((r) => r.alert === 'AcktrailExporterAbsent')!;
  assert.deepEqual(await prometheus.query(absent.expr), [], 'quiet while a target exists');
  const empty = await TestPrometheus.start({});
  try {
    const none = await empty.query(absent.expr);
    assert.deepEqual(
      none.map((s) => s.metric),
      [{ job: 'acktrail' }],
    );
  } finally {
    await empty.close();
  }
});
