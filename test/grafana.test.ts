// The Grafana dashboards as code (grafana/): stable uids, unique panel ids, every datasource
// provisioned, every variable defined and used, every metric documented, every panel the Next.js
// dashboard embeds present, every data link pointing at a section the dashboard has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@acktrail/orders-example/testing';
import { ANOMALY_SECTIONS, EMBEDS } from '../dashboard/lib/embeds.js';

interface Target {
  expr: string;
  datasource?: { uid: string };
}
interface Panel {
  id: number;
  title: string;
  datasource?: { uid: string };
  targets?: Target[];
  fieldConfig?: { defaults?: { links?: { url: string }[] } };
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
  datasource?: { uid: string };
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
}

const DIR = join(REPO_ROOT, 'grafana/dashboards');
const dashboards = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Dashboard);
const byUid = new Map(dashboards.map((d) => [d.uid, d]));
const provisioned = readdirSync(join(REPO_ROOT, 'grafana/provisioning/datasources')).flatMap((f) =>
  (
    parse(readFileSync(join(REPO_ROOT, 'grafana/provisioning/datasources', f), 'utf8')) as {
      datasources: { uid: string }[];
    }
  ).datasources.map((d) => d.uid),
);
const BUILTIN = new Set(['__rate_interval', '__interval', '__range', '__range_s', '__name']);
const refs = (text: string) =>
  [...text.matchAll(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g)].map((m) => (m[1] ?? m[2])!);
const queries = (d: Dashboard) => d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const texts = (d: Dashboard) => [
  ...queries(d),
  ...d.panels.flatMap((p) => (p.fieldConfig?.defaults?.links ?? []).map((l) => l.url)),
  ...d.templating.list.map((v) => (typeof v.query === 'string' ? '' : (v.query?.query ?? ''))),
];

test('the four dashboards, each with its stable uid', () => {
  assert.deepEqual([...byUid.keys()].sort(), [
    'acktrail-event-flow',
    'acktrail-pipeline',
    'acktrail-queue',
    'acktrail-self',
  ]);
});

test('panel ids are unique within each dashboard, and every panel has a query', () => {
  for (const d of dashboards) {
    const ids = d.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, `${d.uid}: duplicate panel id`);
    for (const p of d.panels) assert.ok(p.targets?.length, `${d.uid} panel ${p.id} has no query`);
  }
});

test('every datasource a panel, query or variable names is provisioned', () => {
  assert.ok(provisioned.length > 0);
  for (const d of dashboards) {
    const uids = [
      ...d.panels.flatMap((p) => [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]),
      ...d.templating.list.map((v) => v.datasource),
    ]
      .filter((ds) => ds !== undefined)
      .map((ds) => ds.uid);
    for (const uid of uids) assert.ok(provisioned.includes(uid), `${d.uid}: datasource ${uid}`);
  }
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

test('every metric a panel queries is documented in docs/metrics.md', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/metrics.md'), 'utf8');
  for (const d of dashboards)
    for (const expr of queries(d))
      for (const [name] of expr.matchAll(/acktrail_[a-z_]+/g)) {
        const family = name.replace(/_(bucket|count|sum)$/, '');
        assert.ok(doc.includes(`\`${family}\``), `${d.uid}: ${name} is not in docs/metrics.md`);
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
