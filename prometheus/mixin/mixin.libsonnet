// acktrail as a monitoring mixin, for kube-prometheus and jsonnet-bundler users:
//
//   local acktrail = import 'github.com/acktrail/acktrail/prometheus/mixin/mixin.libsonnet';
//   acktrail.prometheusAlerts    alert groups    (PrometheusRule, or a rules file)
//   acktrail.prometheusRules     recording groups
//   acktrail.grafanaDashboards   { 'name.json': dashboard }
//
// It is the files `npm run generate` writes with the default parameters (the rules, and
// grafana/dashboards/), read as they are: test/mixin-jsonnet.test.ts renders it with jsonnet and
// checks it equals them. For other parameters (selector, groupLabels, replicaLabels, thresholds,
// the SLO): `npm run generate -- --out DIR --param name=value ...`, then import DIR's files the
// same way. The generator rewrites every query with a PromQL parser, which jsonnet does not have,
// so the parameters are not fields of this object: a `_config` here would be ignored silently.
// The rules as JSON (generated beside prometheus/rules/acktrail.rules.yml): std.parseYaml of
// Debian's jsonnet 0.18 fails on the rules' multi-line expressions.
local rules = import 'generated/rules.json';
local recording(group) = std.length([r for r in group.rules if !std.objectHas(r, 'record')]) == 0;

{
  prometheusAlerts:: { groups: [g for g in rules.groups if !recording(g)] },
  prometheusRules:: { groups: [g for g in rules.groups if recording(g)] },
  grafanaDashboards:: {
    'acktrail-self.json': import '../../grafana/dashboards/acktrail-self.json',
    'celery.json': import '../../grafana/dashboards/celery.json',
    'event-flow.json': import '../../grafana/dashboards/event-flow.json',
    'pipeline-overview.json': import '../../grafana/dashboards/pipeline-overview.json',
    'queue-detail.json': import '../../grafana/dashboards/queue-detail.json',
  },
}
