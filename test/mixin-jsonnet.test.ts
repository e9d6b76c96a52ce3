// The jsonnet entry point (prometheus/mixin/mixin.libsonnet) rendered by Debian's jsonnet equals
// the generated files: every rule group of prometheus/rules/acktrail.rules.yml, alerts and
// recording rules apart, and every dashboard of grafana/dashboards/, none missing, none extra.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '@acktrail/testing';

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
