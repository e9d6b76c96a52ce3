// deploy/kubernetes/: every manifest is valid against the Kubernetes and Prometheus Operator
// schemas (offline, kubernetes-models), its names agree with each other (probes, Service and
// NetworkPolicy ports name container ports; the listener variables are the container ports; the
// exporter's config and environment pass its own validation), and the generated rules and
// dashboards equal their sources.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '@acktrail/testing';
import { loadConfig } from '@acktrail/exporter';
import { generated } from '../scripts/generate.js';
import {
  DEPLOY as DIR,
  manifests,
  monitored,
  validateManifest,
  type Manifest,
} from './operator.js';

const find = (kind: string, name: string) => {
  const m = manifests().find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(m, `${kind} ${name}`);
  return m as never;
};

interface Container {
  image: string;
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  startupProbe?: { httpGet: { path: string; port: string } };
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean };
  resources: { requests: { memory: string }; limits: { memory: string } };
}
interface PodSpec {
  containers: Container[];
  volumes: { name: string; configMap?: { name: string } }[];
  topologySpreadConstraints?: {
    topologyKey: string;
    whenUnsatisfiable: string;
    labelSelector: { matchLabels: Record<string, string> };
  }[];
}
interface Deployment {
  spec: {
    replicas: number;
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
const containerOf = (d: Deployment) => d.spec.template.spec.containers[0]!;
/** The ConfigMap the exporter's config volume mounts. */
const configMapOf = (d: Deployment) =>
  d.spec.template.spec.volumes.find((v) => v.name === 'config')!.configMap!.name;

/** deploy/kubernetes copied with one file changed, rendered: what an edit of it applies. */
function renderedWith(file: string, edit: (text: string) => string): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-kustomize-'));
  cpSync(DIR, dir, { recursive: true });
  writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
  try {
    return manifests(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const pick = (all: Manifest[], kind: string, name: string) =>
  all.find((m) => m.kind === kind && m.metadata.name === name) as never;

test('every manifest is valid against its schema', () => {
  const all = manifests();
  assert.ok(all.length >= 8, `${all.length} manifests`);
  for (const m of all) validateManifest(m);
  // The validation is real: a wrong type is refused.
  const broken = structuredClone(find('Deployment', 'acktrail-exporter')) as { spec: object };
  Object.assign(broken.spec, { replicas: 'two' });
  assert.throws(() => {
    validateManifest(broken as never);
  }, /Deployment acktrail-exporter/);
});

test('the exporter: probes, Service and NetworkPolicy name its ports; its variables are those ports', () => {
  const d = find('Deployment', 'acktrail-exporter');
  const c = containerOf(d);
  const ports = Object.fromEntries(c.ports.map((p) => [p.name, p.containerPort]));
  for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe!])
    assert.ok(ports[probe.httpGet.port], `probe port ${probe.httpGet.port}`);
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  assert.equal(c.livenessProbe.httpGet.path, '/healthz');
  // Not readiness: a pod whose store is away would be restarted for it, every failureThreshold.
  assert.equal(c.startupProbe?.httpGet.path, '/healthz');
  const env = Object.fromEntries(c.env.map((e) => [e.name, e.value]));
  assert.equal(Number(env.ACKTRAIL_PORT), ports.api);
  assert.equal(Number(env.ACKTRAIL_METRICS_PORT), ports.metrics);
  assert.equal(Number(env.ACKTRAIL_INGEST_PORT), ports['otlp-http']);
  assert.equal(Number(env.ACKTRAIL_OTLP_GRPC_PORT), ports['otlp-grpc']);
  const service = find('Service', 'acktrail-exporter') as {
    spec: { ports: { name: string; targetPort: string }[] };
  };
  for (const p of service.spec.ports) assert.ok(ports[p.targetPort], `Service ${p.name}`);
  const monitor = find('ServiceMonitor', 'acktrail-exporter') as {
    spec: { endpoints: { port: string }[] };
  };
  assert.deepEqual(
    monitor.spec.endpoints.map((e) => e.port),
    ['metrics'],
  );
  assert.ok(service.spec.ports.some((p) => p.name === 'metrics'));
  const policy = find('NetworkPolicy', 'acktrail-exporter') as {
    spec: { ingress: { ports: { port: string }[] }[] };
  };
  const allowed = policy.spec.ingress.map((r) => r.ports.map((p) => p.port));
  assert.deepEqual(allowed, [['metrics'], ['api'], ['otlp-http', 'otlp-grpc']]);
  // The dashboard believes its proxy's identity headers: only the ingress reaches it.
  const dashboard = containerOf(find('Deployment', 'acktrail-dashboard'));
  const dashboardPolicy = find('NetworkPolicy', 'acktrail-dashboard') as {
    spec: {
      podSelector: { matchLabels: Record<string, string> };
      ingress: { ports: { port: string }[] }[];
    };
  };
  assert.deepEqual(
    dashboardPolicy.spec.ingress.map((r) => r.ports.map((p) => p.port)),
    [['http']],
  );
  assert.ok(dashboard.ports.some((p) => p.name === 'http'));
  assert.deepEqual(dashboardPolicy.spec.podSelector.matchLabels, {
    'app.kubernetes.io/name': 'acktrail-dashboard',
  });
  for (const c2 of [c, dashboard]) {
    assert.equal(c2.securityContext.readOnlyRootFilesystem, true);
    assert.equal(c2.securityContext.allowPrivilegeEscalation, false);
  }
});

test("the exporter-down alert selects the job prometheus-operator gives the ServiceMonitor's targets", () => {
  // prometheus-operator: job = the Service's label named by jobLabel, else the Service's name.
  const { job } = monitored();
  const rule = readFileSync(join(DIR, 'generated/prometheus-rule.yaml'), 'utf8');
  const down = /alert: AcktrailExporterDown\s+expr: (.+)/.exec(rule)?.[1] ?? '';
  assert.match(down, new RegExp(`up\\{job="${job}"\\}`), `the alert selects job="${job}"`);
});

test("the exporter's config and environment pass its own validation", () => {
  const deployment = find('Deployment', 'acktrail-exporter');
  const c = containerOf(deployment);
  const map = find('ConfigMap', configMapOf(deployment)) as { data: Record<string, string> };
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-k8s-'));
  const file = join(dir, 'acktrail.yaml');
  writeFileSync(file, map.data['acktrail.yaml']!);
  const secret = join(dir, 'secret');
  writeFileSync(secret, 'postgres://acktrail:pw@postgres:5432/orders');
  const env: Record<string, string> = {};
  for (const e of c.env) {
    if (e.name === 'ACKTRAIL_CONFIG') env[e.name] = file;
    else if (e.name.endsWith('_FILE')) env[e.name] = secret;
    else env[e.name] = e.value!;
  }
  // Tokens as files hold a token, not a URL: the same file would make them equal (refused).
  const token = (n: string) => {
    const p = join(dir, n);
    writeFileSync(p, `${n}-0123456789abcdef0123456789`);
    return p;
  };
  env.ACKTRAIL_API_TOKEN_FILE = token('api');
  env.ACKTRAIL_INGEST_TOKEN_FILE = token('ingest');
  const config = loadConfig(env);
  assert.equal(config.otlpGrpcPort, 4317);
  assert.equal(config.metricsPort, 9471);
  assert.equal(config.listenHost, '0.0.0.0');
});

test('the generated PrometheusRule and dashboards equal their sources (npm run generate)', () => {
  for (const [name, text] of Object.entries(generated()))
    assert.equal(
      readFileSync(join(REPO_ROOT, name), 'utf8'),
      text,
      `${name} is stale: run npm run generate`,
    );
});

test('replicas spread over nodes and zones, and a drain keeps one of each', () => {
  for (const name of ['acktrail-exporter', 'acktrail-dashboard']) {
    const d = find('Deployment', name) as Deployment;
    const spread = d.spec.template.spec.topologySpreadConstraints ?? [];
    assert.deepEqual(
      spread.map((t) => t.topologyKey).sort(),
      ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'],
      name,
    );
    for (const t of spread) {
      // Each counts this Deployment's pods: its selector is a subset of the pods' labels.
      for (const [k, v] of Object.entries(t.labelSelector.matchLabels))
        assert.equal(d.spec.template.metadata.labels[k], v, `${name} ${t.topologyKey}`);
      // A cluster of one node or zone still schedules every replica.
      assert.equal(t.whenUnsatisfiable, 'ScheduleAnyway');
    }
    const pdb = find('PodDisruptionBudget', name) as {
      spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } };
    };
    for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels))
      assert.equal(d.spec.template.metadata.labels[k], v, `${name} PodDisruptionBudget`);
    assert.ok(pdb.spec.minAvailable >= 1 && pdb.spec.minAvailable < d.spec.replicas, name);
  }
});

test("an edit of the exporter's config rolls its pods: the ConfigMap's name carries its hash", () => {
  const before = find('Deployment', 'acktrail-exporter') as Deployment;
  const name = configMapOf(before);
  assert.match(name, /^acktrail-exporter-[a-z0-9]{10}$/);
  assert.ok(find('ConfigMap', name));
  const edited = renderedWith('acktrail.yaml', (t) => `${t}statsIntervalSeconds: 30\n`);
  const after = pick(edited, 'Deployment', 'acktrail-exporter') as Deployment;
  const renamed = configMapOf(after);
  assert.notEqual(renamed, name, 'the pod template changes with the config');
  const map = pick(edited, 'ConfigMap', renamed) as { data: Record<string, string> };
  assert.match(map.data['acktrail.yaml']!, /statsIntervalSeconds: 30/);
});

test("the NetworkPolicies' namespaces are parameters (params.yaml)", () => {
  const admitted = (all: Manifest[], policy: string) =>
    (
      pick(all, 'NetworkPolicy', policy) as {
        spec: { ingress: { from: { namespaceSelector?: { matchLabels: object } }[] }[] };
      }
    ).spec.ingress[0]!.from[0]!.namespaceSelector?.matchLabels;
  assert.deepEqual(admitted(manifests(), 'acktrail-exporter'), {
    'kubernetes.io/metadata.name': 'monitoring',
  });
  assert.deepEqual(admitted(manifests(), 'acktrail-dashboard'), {
    'kubernetes.io/metadata.name': 'ingress-nginx',
  });
  const edited = renderedWith('params.yaml', (t) =>
    t
      .replace('prometheusNamespace: monitoring', 'prometheusNamespace: observability')
      .replace('ingressNamespace: ingress-nginx', 'ingressNamespace: traefik'),
  );
  assert.deepEqual(admitted(edited, 'acktrail-exporter'), {
    'kubernetes.io/metadata.name': 'observability',
  });
  assert.deepEqual(admitted(edited, 'acktrail-dashboard'), {
    'kubernetes.io/metadata.name': 'traefik',
  });
  // The parameters are read, not applied.
  assert.ok(!manifests().some((m) => m.metadata.name === 'acktrail-params'));
});

test("the images are the release's as scripts/images.sh tags them, and an overlay points them at a registry", () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const image = (all: Manifest[], name: string) => containerOf(pick(all, 'Deployment', name)).image;
  assert.equal(image(manifests(), 'acktrail-exporter'), `acktrail/exporter:${version}`);
  assert.equal(image(manifests(), 'acktrail-dashboard'), `acktrail/dashboard:${version}`);
  const overlay = mkdtempSync(join(tmpdir(), 'acktrail-overlay-'));
  try {
    writeFileSync(
      join(overlay, 'kustomization.yaml'),
      `resources: [${relative(overlay, DIR)}]
images:
  - { name: acktrail/exporter, newName: registry.example.com/acktrail/exporter, newTag: 9.9.9 }
  - { name: acktrail/dashboard, newName: registry.example.com/acktrail/dashboard, newTag: 9.9.9 }
`,
    );
    const all = manifests(overlay);
    assert.equal(image(all, 'acktrail-exporter'), 'registry.example.com/acktrail/exporter:9.9.9');
    assert.equal(image(all, 'acktrail-dashboard'), 'registry.example.com/acktrail/dashboard:9.9.9');
  } finally {
    rmSync(overlay, { recursive: true, force: true });
  }
});
