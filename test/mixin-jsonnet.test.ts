// The jsonnet mixin (prometheus/mixin/mixin.libsonnet) rendered by Debian's jsonnet equals the
// generated files: every rule group of prometheus/rules/acktrail.rules.yml, alerts and recording
// rules apart, and every dashboard of grafana/dashboards/, none missing, none extra. Vendored the
// way jsonnet-bundler lays it out (the folder alone under vendor/<its import path>), its `_config`
// overrides render what the generator renders for the same parameters.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '@acktrail/testing';
import { DEFAULTS, THRESHOLDS, type Params } from '../prometheus/mixin/params.js';
import { dashboards, rulesFile } from '../scripts/generate.js';

interface Group {
  name: string;
  rules: { alert?: string; record?: string }[];
}
interface Mixin {
  prometheusAlerts: { groups: Group[] };
  prometheusRules: { groups: Group[] };
  grafanaDashboards: Record<string, unknown>;
}

const rendered = JSON.parse(
  execFileSync('jsonnet', [join(REPO_ROOT, 'prometheus/mixin/render.jsonnet')], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }),
) as Mixin;

test("the mixin's rules are the generated rules file's, alerts and recording rules apart", () => {
  const file = parse(
    readFileSync(join(REPO_ROOT, 'prometheus/rules/acktrail.rules.yml'), 'utf8'),
  ) as { groups: Group[] };
  const { prometheusAlerts: alerts, prometheusRules: records } = rendered;
  assert.ok(alerts.groups.every((g) => g.rules.every((r) => r.alert !== undefined)));
  assert.ok(records.groups.every((g) => g.rules.every((r) => r.record !== undefined)));
  assert.ok(records.groups.length > 0 && alerts.groups.length > 0);
  const byName = (gs: Group[]) => [...gs].sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(byName([...alerts.groups, ...records.groups]), byName(file.groups));
});

test("the mixin's dashboards are grafana/dashboards/, every one", () => {
  const dir = join(REPO_ROOT, 'grafana/dashboards');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.deepEqual(Object.keys(rendered.grafanaDashboards).sort(), files.sort());
  for (const f of files)
    assert.deepEqual(
      rendered.grafanaDashboards[f],
      JSON.parse(readFileSync(join(dir, f), 'utf8')),
      f,
    );
});

// A consumer of the mixin as `jb install github.com/acktrail/acktrail/prometheus/mixin@main`
// leaves it: its jsonnetfile.json naming the dependency, and the mixin's folder, nothing else of
// the repository, under vendor/ at its import path.
const IMPORT = 'github.com/acktrail/acktrail/prometheus/mixin';
const consumer = mkdtempSync(join(tmpdir(), 'acktrail-jb-'));
after(() => {
  rmSync(consumer, { recursive: true, force: true });
});
writeFileSync(
  join(consumer, 'jsonnetfile.json'),
  JSON.stringify({
    version: 1,
    dependencies: [
      {
        source: {
          git: { remote: 'https://github.com/acktrail/acktrail.git', subdir: 'prometheus/mixin' },
        },
        version: 'main',
      },
    ],
    legacyImports: true,
  }),
);
cpSync(join(REPO_ROOT, 'prometheus/mixin'), join(consumer, 'vendor', IMPORT), { recursive: true });

/** The vendored mixin with a `_config` override (jsonnet source), rendered by jsonnet -J vendor. */
function vendored(config: string) {
  const main = join(consumer, 'main.jsonnet');
  writeFileSync(
    main,
    `local acktrail = (import '${IMPORT}/mixin.libsonnet') + { _config+:: ${config} };
{ alerts: acktrail.prometheusAlerts, records: acktrail.prometheusRules, dashboards: acktrail.grafanaDashboards }`,
  );
  return spawnSync('jsonnet', ['-J', join(consumer, 'vendor'), main], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
}

test('the mixin declares itself for jsonnet-bundler and imports nothing from outside its folder', () => {
  const own = JSON.parse(
    readFileSync(join(REPO_ROOT, 'prometheus/mixin/jsonnetfile.json'), 'utf8'),
  ) as { version: number; dependencies: unknown[] };
  assert.equal(own.version, 1);
  assert.deepEqual(own.dependencies, []);
  const r = vendored('{}');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { dashboards: Record<string, unknown> };
  assert.deepEqual(out.dashboards, rendered.grafanaDashboards);
});

test('_config overrides render the rules and dashboards the generator renders for them', () => {
  const overrides = {
    selector: 'cluster="eu-1"',
    exporterSelector: 'job=~"acktrail.*"',
    groupLabels: ['cluster', 'team'],
    replicaLabels: ['instance', 'pod'],
    runbookURLPattern: 'https://wiki.example/runbooks/%s',
    alertNamePrefix: 'Ack',
  };
  const thresholds = { queueBacklog: 5000, sloObjective: 0.995, sloLatencySeconds: 2.5 };
  const params: Params = {
    ...DEFAULTS,
    ...overrides,
    thresholds: { ...THRESHOLDS, ...thresholds },
  };
  // JSON is jsonnet: the same overrides, the thresholds merged into the defaults' (`+:`).
  const r = vendored(
    `${JSON.stringify(overrides)} + { thresholds+: ${JSON.stringify(thresholds)} }`,
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as {
    alerts: { groups: Group[] };
    records: { groups: Group[] };
    dashboards: Record<string, unknown>;
  };
  const byName = (gs: Group[]) => [...gs].sort((a, b) => a.name.localeCompare(b.name));
  const expected = parse(rulesFile(params)) as { groups: Group[] };
  assert.deepEqual(byName([...out.alerts.groups, ...out.records.groups]), byName(expected.groups));
  // The overrides took: not the defaults' render.
  assert.notDeepEqual(out.alerts, rendered.prometheusAlerts);
  const exprs = JSON.stringify(out.alerts);
  assert.match(exprs, /cluster=\\"eu-1\\"/);
  assert.match(exprs, /> 5000/);
  for (const [f, json] of dashboards(params))
    assert.deepEqual(out.dashboards[f], JSON.parse(json), f);
  assert.notDeepEqual(out.dashboards, rendered.grafanaDashboards);
});

test('a _config the generator would refuse stops the render, naming what is wrong', () => {
  for (const [config, says] of [
    ['{ thresholds+: { queueBacklogg: 1 } }', /thresholds: unknown queueBacklogg/],
    ['{ selector: \'{cluster="eu-1"}\' }', /selector: matchers only/],
    ["{ runbookURLPattern: 'https://wiki.example/runbooks' }", /runbookURLPattern: needs %s/],
  ] as const) {
    const r = vendored(config);
    assert.notEqual(r.status, 0, config);
    assert.match(r.stderr, says, config);
  }
});
