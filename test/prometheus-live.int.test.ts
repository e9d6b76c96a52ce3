// A real Prometheus (Debian's package) scraping a real exporter and the broker's own endpoint,
// with acktrail's alert rules, while the reference pipeline runs and four failures of the design
// brief are injected: dead letters (6), consumers stopped (7), wrong routing key (5) and with it
// an outbox that stops draining (1). Through Prometheus' HTTP API: the alerts of those failures
// fire, the self-monitoring alerts stay quiet, every Grafana panel's query returns data, and every
// metric an alert expression names exists. Prometheus also remote-writes into a real
// VictoriaMetrics (with vmalert on acktrail's rules): every panel query returns data there too.
// A Prometheus 3 (Debian unstable's, scripts/prometheus3.sh) scrapes the same exporter beside it,
// as kube-prometheus-stack and compose run it: it gets OpenMetrics and the exemplars, every rule
// expression runs there, and the SLO recording rules have series although it stores `le="30.0"`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { parse } from 'yaml';
import {
  PROMETHEUS3,
  REPO_ROOT,
  management,
  waitFor,
  TestPrometheus,
  TestVictoriaMetrics,
} from '@acktrail/testing';
import { TestPipeline, type Role } from '@acktrail/orders-example/testing';
import { createReadOnlyRole, ordersConfig, TestExporter } from '@acktrail/exporter/testing';
import { DEFAULTS } from '../prometheus/mixin/params.js';
import { dashboardFiles, panelQueries, variableQuery } from './grafana-queries.js';

let p: TestPipeline;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let prometheus: TestPrometheus;
let prometheus3: TestPrometheus;
let victoria: TestVictoriaMetrics;
/** When the run began (unix seconds): the panels' queries look at the whole run. */
const startedAt = Date.now() / 1000;

const INJECTED = [
  'AcktrailDeadLettersGrowing',
  'AcktrailConsumersDown',
  'AcktrailUnroutablePublishes',
  'AcktrailOutboxStuck',
];
const QUIET = ['AcktrailExporterDown', 'AcktrailCollectorFailing', 'AcktrailSpansRejected'];

const firing = async () =>
  new Set((await prometheus.query('ALERTS{alertstate="firing"}')).map((s) => s.metric.alertname!));

before(async () => {
  p = await TestPipeline.create({ PROVIDER_REJECT_ADDRESSES: '*@invalid.example' });
  role = await createReadOnlyRole(p.db.name);
  // Parking on for a dead-letter queue of its own (the orders DLQ stays a queue that grows, for
  // AcktrailDeadLettersGrowing's first branch): the parking metrics an alert names exist.
  const conn = await amqp.connect(p.vhost.url);
  await (await conn.createChannel()).assertQueue('audit.dlq', { durable: true });
  await conn.close();
  exporter = await TestExporter.withStore(
    {
      DATABASE_URL: role.url,
      ACKTRAIL_API_TOKEN: 'live-test-token-0123456789',
      ACKTRAIL_DEAD_LETTER_KEY: randomBytes(32).toString('base64'),
    },
    ordersConfig({
      rabbitmq: { vhosts: [p.vhost.name], statsIntervalSeconds: 1 },
      deadLetters: { enabled: true, url: p.vhost.url, queues: [{ queue: 'audit.dlq' }] },
    }),
  );
  victoria = await TestVictoriaMetrics.start();
  prometheus = await TestPrometheus.start(
    { acktrail: exporter.url, rabbitmq: 'http://127.0.0.1:15692' },
    { remoteWrite: victoria.writeUrl },
  );
  prometheus3 = await TestPrometheus.start(
    { acktrail: exporter.url, rabbitmq: 'http://127.0.0.1:15692' },
    { binary: PROMETHEUS3 },
  );
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: exporter.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
  const start = (r: Role, extra: Record<string, string> = {}, name?: string) =>
    p.start(r, { ...otel, ...extra }, name);
  await start('provider');
  await Promise.all([start('api'), start('relay'), start('worker')]);

  // A working pipeline first, so that latency, provider and stage metrics have data.
  for (let i = 0; i < 5; i++) await p.createOrder();
  await prometheus.waitForSeries('acktrail_aggregates{status="sent"} >= 5');
  // A histogram's series starts at its first observation, so the first confirmations raise no
  // rate(): keep orders coming until the latency panels' own expression has a value.
  await waitFor(
    'a finite confirmation latency quantile',
    async () => {
      await p.createOrder();
      return (
        (
          await prometheus.query(
            'histogram_quantile(0.5, sum by (le) (rate(acktrail_confirmation_latency_seconds_bucket[1m]))) >= 0',
          )
        ).length > 0
      );
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  // Failure 6: a rejected address goes to the dead-letter queue.
  await p.createOrder({ customer_email: 'x@invalid.example', total: 3 });
  await prometheus.waitForSeries(
    'acktrail_queue_messages_ready{role="dead_letter",queue="orders.confirmations.dlq"} > 0',
  );
  // Failure 7: the consumers stop while orders keep coming.
  await p.stop('worker');
  await p.createOrder();
  await p.createOrder();
  await prometheus.waitForSeries(
    'acktrail_queue_messages_ready{role="work",queue="orders.confirmations"} > 0',
  );
  // Failure 5 (and with it 1): the only relay publishes with a wrong routing key.
  await p.stop('relay');
  await start('relay', { FAULT_RELAY_ROUTING_KEY: 'order.craeted' }, 'bad-relay');
  await p.createOrder();
});

after(async () => {
  await p.close();
  await prometheus.close();
  await prometheus3.close();
  await victoria.close();
  await exporter.close();
  await role.drop();
});

test('the alerts of the injected failures fire; the self-monitoring alerts stay quiet', async () => {
  // AcktrailOutboxStuck is the slowest: 60 s of age, then its 1 minute `for`.
  const fired = await waitFor(
    `alerts ${INJECTED.join(', ')} firing`,
    async () => {
      const now = await firing();
      return INJECTED.every((a) => now.has(a)) ? now : null;
    },
    { timeoutMs: 240_000, intervalMs: 1000 },
  );
  for (const a of QUIET) assert.ok(!fired.has(a), `${a} should not fire`);
  const unroutable = await prometheus.query('ALERTS{alertname="AcktrailUnroutablePublishes"}');
  assert.equal(unroutable[0]?.metric.routing_key, 'order.craeted');
  // Two rules of that name (warning after 1 min, critical after 5): the queues they name.
  const consumers = await prometheus.query('ALERTS{alertname="AcktrailConsumersDown"}');
  assert.deepEqual(
    [...new Set(consumers.map((s) => s.metric.queue))],
    ['orders.confirmations'],
    'only the work queue; retry queues never have consumers',
  );
});

/** Every panel query but the Celery dashboard's (test/celery.int.test.ts runs those, with Celery). */
const panels = () =>
  panelQueries(
    dashboardFiles().filter((f) => f !== 'celery.json'),
    { vhost: p.vhost.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), queue: 'orders.confirmations' },
  );

// A panel has data when its query has a finite point somewhere in the run (an instant query at
// the end would count a quantile's NaN as data, and miss rates of what stopped a minute ago).
test('every Grafana panel query returns data', async () => {
  const queries = panels();
  for (const { where, query } of queries)
    assert.ok(
      await prometheus.hasPoints(query, startedAt, Date.now() / 1000),
      `${where}: ${query}`,
    );
  assert.ok(queries.length >= 30, `${queries.length} panel queries`);
});

// The RabbitMQ cluster variable, as Grafana resolves it: it lists the broker's own cluster name,
// and choosing that name finds this exporter (its instance), choosing another finds none.
test("every dashboard's RabbitMQ cluster variable names the broker's cluster and finds its exporter", async () => {
  const { cluster_name } = (await management('/overview')) as { cluster_name: string };
  const instance = new URL(exporter.url).host;
  const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const all = { ...Object.fromEntries(DEFAULTS.groupLabels.map((l) => [l, '.*'])), job: '.*' };
  for (const file of dashboardFiles()) {
    const clusters = await prometheus.waitForSeries(variableQuery(file, 'rabbitmq_cluster', all));
    assert.deepEqual(
      clusters.map((s) => s.metric.rabbitmq_cluster),
      [cluster_name],
      file,
    );
    const instances = (cluster: string) =>
      prometheus.query(variableQuery(file, 'instance', { ...all, rabbitmq_cluster: cluster }));
    assert.deepEqual(
      (await instances(quote(cluster_name))).map((s) => s.metric.instance),
      [instance],
      file,
    );
    assert.deepEqual(await instances('elsewhere'), [], file);
  }
});

// `npm run generate -- --selector …` for a Prometheus shared by many acktrails: the selector is in
// every query, so the dashboards generated for this job draw every panel and those generated for
// a job this Prometheus does not have draw none (a panel that missed the selector would).
test('Grafana dashboards generated with a selector read only the series it selects', async () => {
  const files = dashboardFiles().filter((f) => f !== 'celery.json');
  const values = { vhost: p.vhost.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') };
  const end = Date.now() / 1000;
  const generated = (selector: string) =>
    panelQueries(files, { ...values, queue: 'orders.confirmations' }, { ...DEFAULTS, selector });
  const ours = generated('job="acktrail"');
  assert.equal(ours.length, panels().length);
  for (const { where, query } of ours) {
    assert.match(query, /job="acktrail"/, where);
    assert.ok(await prometheus.hasPoints(query, startedAt, end), `${where}: ${query}`);
  }
  // A count drawn as 0 when nothing matches (`or vector(0)`) has points, all of them zero.
  for (const { where, query } of generated('job="acktrail-elsewhere"')) {
    const nonZero = query.includes('or vector(0)') ? `(${query}) != 0` : query;
    assert.equal(await prometheus.hasPoints(nonZero, startedAt, end), false, `${where}: ${query}`);
  }
});

test('every Grafana panel query returns data in VictoriaMetrics, fed by remote_write', async () => {
  const end = Date.now() / 1000;
  for (const { where, query } of panels())
    await waitFor(
      `${where} in VictoriaMetrics: ${query}`,
      () => victoria.hasPoints(query, startedAt, end),
      { timeoutMs: 30_000, intervalMs: 500 },
    );
});

test('Prometheus stores the exporter’s exemplars, and an exemplar’s event id opens its journey', async () => {
  const series = await waitFor('stage-duration exemplars in Prometheus', async () => {
    const found = await prometheus.exemplars(
      'acktrail_stage_duration_seconds_bucket',
      startedAt,
      Date.now() / 1000,
    );
    return found.some((s) => s.exemplars.length) ? found : undefined;
  });
  const exemplar = series.flatMap((s) => s.exemplars).find((e) => e.labels.event_id)!;
  const { event_id: eventId, trace_id: traceId } = exemplar.labels;
  assert.match(traceId ?? '', /^[0-9a-f]{32}$/);
  const res = await fetch(`${exporter.url}/api/events/${encodeURIComponent(eventId!)}`, {
    headers: { authorization: 'Bearer live-test-token-0123456789' },
  });
  assert.equal(res.status, 200);
  const journey = (await res.json()) as { eventId: string; traceIds: string[] };
  assert.equal(journey.eventId, eventId);
  assert.ok(journey.traceIds.includes(traceId!), 'the exemplar’s trace is the journey’s');
});

test('every metric an alert expression names exists in Prometheus', async () => {
  const rules = parse(
    readFileSync(join(REPO_ROOT, 'prometheus/rules/acktrail.rules.yml'), 'utf8'),
  ) as { groups: { name: string; rules: { alert: string; expr: string }[] }[] };
  // The Celery rules' metrics exist with Celery: test/celery.int.test.ts checks those.
  for (const rule of rules.groups
    .filter((g) => g.name !== 'acktrail.celery')
    .flatMap((g) => g.rules)) {
    await prometheus.query(rule.expr); // throws if Prometheus refuses it
    // Waited for, bounded: a collector that outran its timeout on a loaded machine (the
    // management API's statistics) has its series back at a later scrape.
    for (const [name] of rule.expr.matchAll(/\b(acktrail_[a-z_]+|up)\b(?=\s*[{[)]|\s*$)/g))
      await waitFor(
        `${rule.alert}: a series named ${name}`,
        async () => (await prometheus.query(`count({__name__="${name}"})`)).length > 0,
      );
  }
});

test('Prometheus 3: OpenMetrics with its exemplars, every rule runs, the SLO recordings have series', async () => {
  const version = await (await fetch(`${prometheus3.url}/api/v1/status/buildinfo`)).json();
  assert.match((version as { data: { version: string } }).data.version, /^3\./);
  // It asks for OpenMetrics with escaping=allow-utf-8: the exemplars are there.
  await waitFor('stage-duration exemplars in Prometheus 3', async () =>
    (
      await prometheus3.exemplars(
        'acktrail_stage_duration_seconds_bucket',
        startedAt,
        Date.now() / 1000,
      )
    ).some((s) => s.exemplars.length > 0),
  );
  // It stores a whole bucket bound as a float, which the rules select in both forms.
  assert.ok(
    (await prometheus3.query('acktrail_confirmation_latency_seconds_bucket{le="30.0"}')).length > 0,
  );
  assert.equal(
    (await prometheus.query('acktrail_confirmation_latency_seconds_bucket{le="30.0"}')).length,
    0,
  );
  for (const window of ['5m', '30m', '1h', '6h'])
    for (const server of [prometheus, prometheus3])
      await server.waitForSeries(`acktrail:confirmation_latency_slow:ratio_rate${window}`);
  const rules = parse(
    readFileSync(join(REPO_ROOT, 'prometheus/rules/acktrail.rules.yml'), 'utf8'),
  ) as { groups: { rules: { expr: string }[] }[] };
  for (const rule of rules.groups.flatMap((g) => g.rules)) await prometheus3.query(rule.expr);
});

// The two versions side by side on the same pipeline, as issue 61's table counts them: every rule
// loaded and evaluated without error, the exporter's exemplars stored on its histograms, the SLO's
// four recording rules with series, the targets up. Printed as a table (the test's diagnostics).
test('Prometheus 2 and 3 side by side: rules healthy, bucket exemplars, SLO recordings, targets up', async (t) => {
  const rows: string[] = [
    '| | rules healthy / loaded | exemplars on acktrail_*_bucket | SLO recordings with series | targets up |',
  ];
  for (const [name, server] of [
    ['Prometheus 2.42', prometheus],
    ['Prometheus 3.5', prometheus3],
  ] as const) {
    const rules = async () => {
      const res = await fetch(`${server.url}/api/v1/rules`);
      const body = (await res.json()) as { data: { groups: { rules: { health: string }[] }[] } };
      return body.data.groups.flatMap((g) => g.rules);
    };
    // Every rule evaluated at least once, none failing.
    const loaded = await waitFor(`${name}: every rule evaluated`, async () => {
      const all = await rules();
      return all.length > 0 && all.every((r) => r.health === 'ok') ? all : null;
    });
    const exemplars = (
      await server.exemplars('{__name__=~"acktrail_.+_bucket"}', startedAt, Date.now() / 1000)
    ).reduce((n, s) => n + s.exemplars.length, 0);
    const slo = await Promise.all(
      ['5m', '30m', '1h', '6h'].map((w) =>
        server.query(`acktrail:confirmation_latency_slow:ratio_rate${w}`),
      ),
    );
    const withSeries = slo.filter((s) => s.length > 0).length;
    const up = (await server.query('up == 1')).length;
    rows.push(
      `| ${name} | ${loaded.length} / ${loaded.length} | ${exemplars} | ${withSeries} of 4 | ${up} |`,
    );
    assert.ok(exemplars > 0, `${name}: exemplars`);
    assert.equal(withSeries, 4, `${name}: SLO recordings`);
    assert.ok(up > 0, `${name}: targets up`);
  }
  for (const row of rows) t.diagnostic(row);
});
