// The labels that tell replicas of one exporter apart, merged away with `max without (…)` before
// anything sums across queues: Prometheus' `instance`, and what prometheus-operator adds to a
// ServiceMonitor's targets (`pod`, `service`, `endpoint`, `container`). Kept in one place: the
// overview's queries use it, and it is the mixin's default `replicaLabels` (rules and Grafana
// dashboards, prometheus/mixin/params.ts).
export const REPLICA_LABELS = ['instance', 'pod', 'service', 'endpoint', 'container'];

/** `max without (<replica labels>) (expr)`: one replica's value, not the replicas' sum. */
export const oneReplica = (expr: string) => `max without (${REPLICA_LABELS.join(', ')}) (${expr})`;
