// deploy/kube-prometheus-stack/ as kube-prometheus-stack's defaults read it, offline: the overlay
// rendered by `kubectl kustomize` (kustomize v5, the kubectl on this project's machines), every
// manifest valid against its schema, and each thing the chart selects by present where it looks:
// the release label on what its Prometheus selects, the sidecar's label and namespace on the
// dashboards, exemplar storage on, and a datasource whose exemplar links open pages the dashboard
// has, under the labels the exporter writes its exemplars with.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '@acktrail/testing';
import { manifests, validateManifest, type Manifest } from './operator.js';

const OVERLAY = join(REPO_ROOT, 'deploy/kube-prometheus-stack');

const rendered = (): Manifest[] => manifests(OVERLAY);

interface Values {
  prometheus: { prometheusSpec: { enableFeatures: string[] } };
  grafana: {
    sidecar: {
      dashboards: {
        label: string;
        labelValue: string;
        searchNamespace: string;
        folderAnnotation: string | null;
        provider: { foldersFromFilesStructure: boolean };
      };
      datasources: { defaultDatasourceEnabled: boolean; isDefaultDatasource: boolean };
    };
    additionalDataSources: {
      isDefault?: boolean;
      uid: string;
      url: string;
      type: string;
      jsonData: { exemplarTraceIdDestinations: { name: string; url: string }[] };
    }[];
  };
}
/** Helm's merge of a values file over the chart's: maps key by key, anything else replaced. */
function helmMerge(base: unknown, over: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(base) || !isMap(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = helmMerge(base[k], v);
  return out;
}
const ours = parse(readFileSync(join(OVERLAY, 'values.yaml'), 'utf8')) as Values;
const chart = parse(
  readFileSync(join(REPO_ROOT, 'test/fixtures/kube-prometheus-stack-defaults.yaml'), 'utf8'),
) as Values;
/** What the chart runs with: the overlay's values over the chart's defaults. */
const values = helmMerge(chart, ours) as Values;

test('the overlay renders, and every manifest is valid against its schema', () => {
  const all = rendered();
  assert.ok(all.length >= 8, `${all.length} manifests`);
  for (const m of all) validateManifest(m);
});

test("what the chart's Prometheus selects carries the release label; the rest of the stack is one namespace", () => {
  const all = rendered();
  const selected = all.filter((m) => ['ServiceMonitor', 'PrometheusRule'].includes(m.kind));
  assert.deepEqual(selected.map((m) => m.kind).sort(), ['PrometheusRule', 'ServiceMonitor']);
  for (const m of selected)
    assert.equal(m.metadata.labels?.release, 'kube-prometheus-stack', `${m.kind} release label`);
  const namespaces = new Set(all.map((m) => m.metadata.namespace));
  assert.deepEqual([...namespaces], ['acktrail']);
  // The datasource reads the release's Prometheus, in the namespace the metrics port admits.
  const policy = all.find(
    (m) => m.kind === 'NetworkPolicy' && m.metadata.name === 'acktrail-exporter',
  ) as
    (Manifest & { spec: { ingress: { from: object[]; ports: { port: string }[] }[] } }) | undefined;
  const metrics = policy?.spec.ingress.find((r) => r.ports.some((p) => p.port === 'metrics'));
  assert.deepEqual(metrics?.from, [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
    },
  ]);
  const url = new URL(values.grafana.additionalDataSources[0]!.url);
  assert.equal(url.hostname, 'kube-prometheus-stack-prometheus.monitoring');
});

// The sidecar's searchNamespace: ALL, or a comma-separated list of namespaces.
const searched = (ns: string, setting: string) =>
  setting === 'ALL' ||
  setting
    .split(',')
    .map((s) => s.trim())
    .includes(ns);

test("the Grafana sidecar finds every dashboard (its label, its value, its namespace) and keeps the chart's own", () => {
  const { label, labelValue, searchNamespace } = values.grafana.sidecar.dashboards;
  const dashboards = rendered().filter(
    (m) => m.kind === 'ConfigMap' && m.metadata.labels?.[label] !== undefined,
  );
  assert.ok(dashboards.length >= 2, `${dashboards.length} dashboard ConfigMaps`);
  for (const d of dashboards) {
    assert.equal(d.metadata.labels![label], labelValue, d.metadata.name);
    assert.ok(searched(d.metadata.namespace!, searchNamespace), `${d.metadata.name} not searched`);
  }
  // The chart's own dashboards are ConfigMaps in the release's namespace (the Prometheus URL's).
  const release = new URL(values.grafana.additionalDataSources[0]!.url).hostname.split('.')[1]!;
  assert.ok(searched(release, searchNamespace), `the chart's dashboards in ${release} dropped`);
  assert.equal(ours.grafana.sidecar.dashboards.searchNamespace, undefined, 'narrows ALL');
});

test('each dashboard lands in the folder its annotation names, as the sidecar and Grafana read it', () => {
  const { folderAnnotation, provider } = values.grafana.sidecar.dashboards;
  // Unset in the chart's defaults: without both, every dashboard goes to General.
  assert.equal(chart.grafana.sidecar.dashboards.folderAnnotation, null);
  assert.ok(folderAnnotation, 'folderAnnotation');
  assert.equal(provider.foldersFromFilesStructure, true, 'foldersFromFilesStructure');
  const { label } = values.grafana.sidecar.dashboards;
  const dashboards = rendered().filter((m) => m.metadata.labels?.[label] !== undefined);
  for (const d of dashboards)
    assert.equal(d.metadata.annotations?.[folderAnnotation], 'acktrail', d.metadata.name);
});

test('exemplars: stored by Prometheus, and linked to journey pages the dashboard has', () => {
  assert.ok(values.prometheus.prometheusSpec.enableFeatures.includes('exemplar-storage'));
  const source = values.grafana.additionalDataSources.find((d) => d.type === 'prometheus');
  assert.ok(source, 'a Prometheus datasource with exemplar links');
  const links = source.jsonData.exemplarTraceIdDestinations;
  // The exemplar labels the exporter writes (exporter/src/exposition/exemplars.ts).
  const written = readFileSync(join(REPO_ROOT, 'exporter/src/exposition/exemplars.ts'), 'utf8');
  for (const link of links) assert.match(written, new RegExp(`\\['${link.name}'`), link.name);
  assert.deepEqual(links.map((l) => l.name).sort(), ['event_id', 'trace_id']);
  // Each link's path is a page of the dashboard (dashboard/app/<path>/page.tsx).
  for (const link of links) {
    const path = new URL(link.url.replace('${__value.raw}', 'x')).pathname;
    const page = path.replace(/\/x$/, '/[id]');
    assert.ok(
      existsSync(join(REPO_ROOT, 'dashboard/app', page, 'page.tsx')),
      `${link.name}: no dashboard page for ${path}`,
    );
  }
});

test('the dashboards open on the datasource that carries the exemplar links: it is the one default', () => {
  const { sidecar, additionalDataSources } = values.grafana;
  const defaults = [
    ...(sidecar.datasources.defaultDatasourceEnabled && sidecar.datasources.isDefaultDatasource
      ? ["the chart's Prometheus"]
      : []),
    ...additionalDataSources.filter((d) => d.isDefault).map((d) => d.uid),
  ];
  assert.deepEqual(defaults, ['acktrail-prometheus'], 'Grafana allows one default datasource');
  const linked = additionalDataSources.find((d) => d.uid === 'acktrail-prometheus');
  assert.ok(linked?.jsonData.exemplarTraceIdDestinations.length);
  // The dashboards leave their Datasource variable to Grafana's default (no current value).
  const dashboards = readFileSync(join(REPO_ROOT, 'grafana/dashboards/acktrail-self.json'), 'utf8');
  const variable = (
    JSON.parse(dashboards) as {
      templating: { list: { name: string; current: object }[] };
    }
  ).templating.list.find((v) => v.name === 'datasource');
  assert.deepEqual(variable?.current, {});
});
