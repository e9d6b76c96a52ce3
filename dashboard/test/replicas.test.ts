// One replica merge everywhere: every `max without (…)` of the overview, the Celery charts, the
// generated Grafana dashboards and the alert rules drops the same labels (lib/data/replicas.ts), so that
// two exporter replicas scraped through a ServiceMonitor (which adds pod, service, endpoint and
// container to `instance`) count once, never twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { overviewCharts } from '../lib/charts/overview.js';
import { celeryCharts } from '../lib/charts/celery-charts.js';
import { REPLICA_LABELS } from '../lib/data/replicas.js';

const ROOT = join(import.meta.dirname, '..', '..');

function grafanaExprs(): string[] {
  const dir = join(ROOT, 'grafana/dashboards');
  return readdirSync(dir).flatMap((f) =>
    [...readFileSync(join(dir, f), 'utf8').matchAll(/"expr": "((?:[^"\\]|\\.)*)"/g)].map(
      (m) => JSON.parse(`"${m[1]!}"`) as string,
    ),
  );
}

test('every replica merge drops instance, pod, service, endpoint and container', () => {
  const exprs = [
    ...[...overviewCharts(30), ...celeryCharts()].flatMap((c) => c.queries.map((q) => q.expr)),
    ...grafanaExprs(),
    readFileSync(join(ROOT, 'prometheus/rules/acktrail.rules.yml'), 'utf8'),
  ];
  const merges = exprs.flatMap((e) =>
    [...e.matchAll(/max without \(([^)]*)\)/g)].map((m) => m[1]!.split(',').map((l) => l.trim())),
  );
  assert.ok(merges.length >= 30, `the merges are found (${merges.length})`);
  for (const labels of merges) assert.deepEqual([...labels].sort(), [...REPLICA_LABELS].sort());
});
