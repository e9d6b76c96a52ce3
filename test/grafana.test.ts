// The Grafana dashboards as code (grafana/, generated from prometheus/mixin/dashboards/ with the
// mixin's parameters; test/kubernetes.test.ts checks they are current): stable uids, unique panel ids, importable into any
// Grafana (no datasource uid: a `datasource` variable starting at the default, job and instance selectors on
// every series) while the provisioned stack keeps working (its datasource is the default one),
// every variable defined and used, every metric documented, exemplars on the panels of metrics
// that carry them and linked to journeys, every panel the Next.js dashboard embeds present, every
// data link pointing at a section the dashboard has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { METRICS } from '@acktrail/exporter';
import { REPO_ROOT } from '@acktrail/testing';
import { parser } from '@prometheus-io/lezer-promql';
import { ANOMALY_SECTIONS, EMBEDS } from '../dashboard/lib/charts/embeds.js';
import { DEFAULTS } from '../prometheus/mixin/params.js';
import { dashboards as renderedDashboards } from '../scripts/generate.js';

interface Target {
  expr: string;
  datasource?: { uid: string };
  exemplar?: boolean;
}
interface Panel {
  id: number;
  title: string;
  type?: string;
  datasource?: { uid: string };
  targets?: Target[];
  fieldConfig?: { defaults?: { links?: { url: string }[] } };
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
  datasource?: { uid: string };
  current?: { value?: string | string[] };
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
  __inputs?: { name: string; type: string; pluginId: string }[];
  graphTooltip?: number;
}

const DIR = join(REPO_ROOT, 'grafana/dashboards');
const dashboards = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Dashboard);
const byUid = new Map(dashboards.map((d) => [d.uid, d]));
interface Provisioned {
  uid: string;
  type: string;
  isDefault?: boolean;
  jsonData?: { exemplarTraceIdDestinations?: { name: string; url: string }[] };
}
const provisioned = readdirSync(join(REPO_ROOT, 'grafana/provisioning/datasources')).flatMap(
  (f) =>
    (
      parse(readFileSync(join(REPO_ROOT, 'grafana/provisioning/datasources', f), 'utf8')) as {
        datasources: Provisioned[];
      }
    ).datasources,
);
const BUILTIN = new Set(['__rate_interval', '__interval', '__range', '__range_s', '__name']);
const refs = (text: string) =>
  [...text.matchAll(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g)].map((m) => (m[1] ?? m[2])!);
const queries = (d: Dashboard) => d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const datasources = (d: Dashboard) =>
  [
    ...d.panels.flatMap((p) => [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]),
    ...d.templating.list.map((v) => v.datasource),
  ].filter((ds) => ds !== undefined);
const texts = (d: Dashboard) => [
  ...queries(d),
  ...datasources(d).map((ds) => ds.uid),
  ...d.panels.flatMap((p) => (p.fieldConfig?.defaults?.links ?? []).map((l) => l.url)),
  ...d.templating.list.map((v) => (typeof v.query === 'string' ? '' : (v.query?.query ?? ''))),
];

test('the five dashboards, each with its stable uid', () => {
  assert.deepEqual([...byUid.keys()].sort(), [
    'acktrail-celery',
    'acktrail-event-flow',
    'acktrail-pipeline',
    'acktrail-queue',
    'acktrail-self',
  ]);
});

test('every dashboard shares its crosshair across panels (graphTooltip 1)', () => {
  for (const d of dashboards) assert.equal(d.graphTooltip, 1, d.uid);
});

test('a stat panel shows one series per cluster: every query folds the replicas (an aggregation)', () => {
  for (const d of dashboards)
    for (const p of d.panels.filter((x) => x.type === 'stat'))
      for (const t of p.targets ?? [])
        assert.match(t.expr, /^(max|min|sum|count|avg)\b/, `${d.uid}: ${p.title}`);
});

test('panel ids are unique within each dashboard, and every panel has a query', () => {
  for (const d of dashboards) {
    const ids = d.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, `${d.uid}: duplicate panel id`);
    for (const p of d.panels) assert.ok(p.targets?.length, `${d.uid} panel ${p.id} has no query`);
  }
});

test('no datasource uid anywhere: every panel, query and variable uses the datasource variable', () => {
  for (const d of dashboards) {
    const uids = datasources(d).map((ds) => ds.uid);
    assert.ok(uids.length > 0, d.uid);
    for (const uid of uids) assert.equal(uid, '${datasource}', `${d.uid}: datasource ${uid}`);
    const variable = d.templating.list.find((v) => v.name === 'datasource');
    assert.equal(variable?.type, 'datasource', `${d.uid}: a datasource variable`);
    assert.equal(variable.query, 'prometheus');
  }
});

test('provisioned or imported, the datasource variable starts at the default Prometheus: no ${DS_…} left as its value', () => {
  // File provisioning (compose, Grafana's sidecar, the mixin) substitutes no __inputs: a
  // `${DS_PROMETHEUS}` there stays the variable's value, a datasource that does not exist.
  for (const d of dashboards) {
    assert.equal(d.__inputs, undefined, d.uid);
    assert.doesNotMatch(JSON.stringify(d), /\$\{DS_[A-Z_]+\}/, d.uid);
    const variable = d.templating.list.find((v) => v.name === 'datasource')!;
    assert.deepEqual(variable.current, {}, `${d.uid}: no current datasource, so the default`);
  }
  const maps = readFileSync(
    join(REPO_ROOT, 'deploy/kubernetes/generated/grafana-dashboards.yaml'),
    'utf8',
  );
  assert.doesNotMatch(maps, /\$\{DS_[A-Z_]+\}/);
});

test('the provisioned stack keeps working: its Prometheus is the default datasource', () => {
  const prometheus = provisioned.filter((p) => p.type === 'prometheus');
  assert.equal(prometheus.length, 1);
  assert.equal(prometheus[0]!.isDefault, true);
});

/** The label matchers of every series selector in `expr` (Prometheus' grammar), `{}` as ''. */
function selectors(expr: string): string[] {
  // Grafana's own variables stand where PromQL wants a duration.
  const promql = expr
    .replace(/^label_values\((.+),\s*\w+\)$/s, '$1')
    .replaceAll('$__rate_interval', '1m');
  const found: string[] = [];
  parser.parse(promql).iterate({
    enter(node) {
      assert.ok(!node.type.isError, `not PromQL: ${expr}`);
      if (node.name !== 'VectorSelector') return;
      const list = node.node.getChild('LabelMatchers');
      found.push(list ? promql.slice(list.from, list.to) : '');
    },
  });
  return found;
}
const variableQueries = (d: Dashboard) =>
  d.templating.list.flatMap((v) => (typeof v.query === 'object' ? [v.query.query] : []));

test('every series a panel reads is selected by the group labels, $job and $instance', () => {
  for (const d of dashboards) {
    const names = d.templating.list.map((v) => v.name);
    // One variable per group label (cluster, namespace, job), in that order, then instance.
    const order = ['cluster', 'namespace', 'job', 'instance'].map((n) => names.indexOf(n));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)),
      `${d.uid}: ${names.join(', ')}`,
    );
    for (const expr of queries(d))
      for (const m of selectors(expr))
        assert.match(
          m,
          /^\{cluster=~"\$cluster", namespace=~"\$namespace", job=~"\$job", instance=~"\$instance"/,
          `${d.uid}: ${m} in ${expr}`,
        );
  }
});

test('dashboards generated with a selector and other group labels select with them everywhere', () => {
  const params = { ...DEFAULTS, selector: 'region="eu-1"', groupLabels: ['tenant', 'job'] };
  const generated = renderedDashboards(params).map(([, json]) => JSON.parse(json) as Dashboard);
  assert.equal(generated.length, dashboards.length);
  for (const d of generated) {
    const tenant = d.templating.list.find((v) => v.name === 'tenant');
    assert.ok(tenant, `${d.uid}: a $tenant variable`);
    assert.equal(tenant.type, 'query');
    assert.ok(!d.templating.list.some((v) => v.name === 'cluster'), d.uid);
    for (const expr of [...queries(d), ...variableQueries(d)]) {
      const found = selectors(expr);
      assert.ok(found.length > 0, expr);
      for (const m of found) assert.match(m, /^\{region="eu-1"/, `${d.uid}: ${expr}`);
    }
    // Panels and the variables after $tenant are narrowed by it; $tenant itself by the selector.
    for (const expr of queries(d)) assert.match(expr, /tenant=~"\$tenant"/, `${d.uid}: ${expr}`);
    assert.equal(
      (tenant.query as { query: string }).query,
      'label_values(acktrail_build_info{region="eu-1"}, tenant)',
    );
  }
  assert.throws(() => renderedDashboards({ ...DEFAULTS, selector: '{job="x"}' }), /selector/);
});

const EXEMPLAR_METRICS = [
  'acktrail_stage_duration_seconds_bucket',
  'acktrail_confirmation_latency_seconds_bucket',
  'acktrail_redeliveries_total',
  'acktrail_dead_lettered_total',
  'acktrail_duplicate_publishes_total',
];

test('panels over metrics with exemplars show them, and an exemplar opens the journey', () => {
  let shown = 0;
  for (const d of dashboards)
    for (const p of d.panels)
      for (const t of p.targets ?? [])
        if (EXEMPLAR_METRICS.some((m) => t.expr.includes(`${m}{`))) {
          assert.equal(t.exemplar, true, `${d.uid} panel ${p.id}`);
          shown++;
        }
  assert.ok(shown >= 4, `${shown} panel queries with exemplars`);
  const destinations = provisioned.flatMap((p) => p.jsonData?.exemplarTraceIdDestinations ?? []);
  assert.deepEqual(
    destinations.map((x) => [x.name, x.url]),
    [
      ['event_id', '$ACKTRAIL_DASHBOARD_URL/events/$${__value.raw}'],
      ['trace_id', '$ACKTRAIL_DASHBOARD_URL/lookup?q=$${__value.raw}'],
    ],
  );
});

test('every variable is used, and every variable used is defined', () => {
  for (const d of dashboards) {
    const defined = new Set(d.templating.list.map((v) => v.name));
    const used = new Set(texts(d).flatMap(refs));
    for (const v of defined) assert.ok(used.has(v), `${d.uid}: variable ${v} is never used`);
    for (const u of used)
      assert.ok(defined.has(u) || BUILTIN.has(u), `${d.uid}: $${u} is not defined`);
  }
});

/** The exporter's metrics, as its catalogue declares them (its tables in docs/metrics.md too). */
const CATALOGUED = new Set<string>(METRICS.map((m) => m.name));

test("every metric a panel queries is in the exporter's metrics catalogue", () => {
  for (const d of dashboards)
    for (const expr of queries(d))
      for (const [name] of expr.matchAll(/acktrail_[a-z_]+/g)) {
        const family = name.replace(/_(bucket|count|sum)$/, '');
        assert.ok(CATALOGUED.has(family), `${d.uid}: ${name} is not in the metrics catalogue`);
      }
});

test('every panel the Next.js dashboard embeds exists, with the title it shows', () => {
  for (const ref of [...EMBEDS.overview, ...EMBEDS.event]) {
    const panel = byUid.get(ref.uid)?.panels.find((p) => p.id === ref.panelId);
    assert.ok(panel, `${ref.uid} panel ${ref.panelId}`);
    assert.equal(panel.title, ref.title);
  }
});

test('data links lead to sections the acktrail dashboard has', () => {
  const links = dashboards.flatMap((d) =>
    d.panels.flatMap((p) => p.fieldConfig?.defaults?.links ?? []),
  );
  assert.ok(links.length >= 3);
  for (const { url } of links) {
    const m = /^\$\{acktrail_url\}\/#(\w+)$/.exec(url);
    assert.ok(m, `link ${url}`);
    assert.ok(m[1]! in ANOMALY_SECTIONS, `section ${m[1]!}`);
  }
});
