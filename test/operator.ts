// deploy/kubernetes/ read as prometheus-operator reads it: the manifests of the kustomization,
// and the labels the operator's generated scrape configuration gives each target of the shipped
// ServiceMonitor (its relabelling of the endpoints the Service selects):
//   job        the Service's label named by `jobLabel`, else the Service's name
//   namespace  the Service's namespace;  service  its name;  pod  the pod's name
//   endpoint   the ServiceMonitor endpoint's port name;  container  the container with that port
//   instance   the pod's address and port (`__address__`)
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import * as apps from 'kubernetes-models/apps/v1';
import * as core from 'kubernetes-models/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as monitoring from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { REPO_ROOT } from '@acktrail/testing';

export const DEPLOY = join(REPO_ROOT, 'deploy/kubernetes');

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': apps.Deployment,
  'v1/Service': core.Service,
  'v1/ConfigMap': core.ConfigMap,
  'policy/v1/PodDisruptionBudget': policy.PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': networking.NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': monitoring.ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': monitoring.PrometheusRule,
};

/** Throws where the manifest breaks its kind's schema (offline, kubernetes-models). */
export function validateManifest(m: Manifest): void {
  const Model = MODELS[`${m.apiVersion}/${m.kind}`];
  if (!Model) throw new Error(`no schema for ${m.apiVersion} ${m.kind}`);
  try {
    new Model(m as never).validate();
  } catch (err) {
    throw new Error(`${m.kind} ${m.metadata.name}: ${(err as Error).message}`, { cause: err });
  }
}

const rendered = new Map<string, Manifest[]>();

/** Every manifest `kubectl kustomize` renders from a kustomization (deploy/kubernetes by default). */
export function manifests(dir = DEPLOY): Manifest[] {
  let all = rendered.get(dir);
  if (!all) {
    all = parseAllDocuments(
      execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 << 20 }),
    )
      .map((d) => d.toJS() as Manifest | null)
      .filter((m): m is Manifest => m !== null);
    rendered.set(dir, all);
  }
  return all;
}

interface ServiceMonitor {
  spec: {
    jobLabel?: string;
    selector: { matchLabels: Record<string, string> };
    endpoints: { port: string }[];
  };
}
interface Service {
  metadata: { name: string; labels: Record<string, string> };
  spec: { selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
}
interface Deployment {
  metadata: { name: string };
  spec: {
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: { name: string; ports: { name: string }[] }[] };
    };
  };
}

const matches = (labels: Record<string, string> | undefined, want: Record<string, string>) =>
  Object.entries(want).every(([k, v]) => labels?.[k] === v);

/** The ServiceMonitor `name` and the Service it selects. */
export function monitored(name = 'acktrail-exporter') {
  const all = manifests();
  const monitor = all.find((m) => m.kind === 'ServiceMonitor' && m.metadata.name === name) as
    (Manifest & ServiceMonitor) | undefined;
  if (!monitor) throw new Error(`no ServiceMonitor ${name}`);
  const service = all.find(
    (m) => m.kind === 'Service' && matches(m.metadata.labels, monitor.spec.selector.matchLabels),
  ) as (Manifest & Service) | undefined;
  if (!service) throw new Error(`ServiceMonitor ${name} selects no Service of the manifests`);
  const job = monitor.spec.jobLabel
    ? (service.metadata.labels[monitor.spec.jobLabel] ?? service.metadata.name)
    : service.metadata.name;
  return { monitor, service, job };
}

/**
 * The labels of the target prometheus-operator makes for replica `replica` of the Deployment
 * behind the ServiceMonitor `name`, listening at `address` (host:port).
 */
export function operatorLabels(
  replica: number,
  address: string,
  name = 'acktrail-exporter',
): Record<string, string> {
  const { monitor, service, job } = monitored(name);
  const endpoint = monitor.spec.endpoints[0]!.port;
  const targetPort = service.spec.ports.find((p) => p.name === endpoint)?.targetPort;
  const deployment = manifests().find(
    (m) =>
      m.kind === 'Deployment' &&
      matches((m as Manifest & Deployment).spec.template.metadata.labels, service.spec.selector),
  ) as (Manifest & Deployment) | undefined;
  if (!deployment) throw new Error(`Service ${service.metadata.name} selects no Deployment`);
  const container = deployment.spec.template.spec.containers.find((c) =>
    c.ports.some((p) => p.name === targetPort),
  );
  if (!container) throw new Error(`no container of ${deployment.metadata.name} has ${targetPort}`);
  return {
    job,
    namespace: service.metadata.namespace ?? 'acktrail',
    service: service.metadata.name,
    pod: `${deployment.metadata.name}-7c9d5f8b4-r${replica}`,
    endpoint,
    container: container.name,
    instance: address,
  };
}
