// acktrail as a monitoring mixin, for kube-prometheus and jsonnet-bundler users:
//
//   jb install github.com/acktrail/acktrail/prometheus/mixin@main
//
//   local acktrail = (import 'github.com/acktrail/acktrail/prometheus/mixin/mixin.libsonnet') + {
//     _config+:: {
//       selector: 'cluster="eu-1"',
//       replicaLabels: ['instance', 'pod'],
//       thresholds+: { queueBacklog: 5000, sloObjective: 0.995 },
//     },
//   };
//   acktrail.prometheusAlerts    alert groups    (PrometheusRule, or a rules file)
//   acktrail.prometheusRules     recording groups
//   acktrail.grafanaDashboards   { 'name.json': dashboard }
//
// `_config` holds the parameters `npm run generate -- --out DIR ...` takes (prometheus/mixin/params.ts
// says what each does; generated/config.json holds the defaults): selector, exporterSelector,
// groupLabels, replicaLabels, runbookURLPattern, alertNamePrefix and thresholds. An unknown threshold,
// a selector with braces or a runbook pattern without %s stops the render naming it. Everything this
// imports is in this folder (jb vendors the folder alone): the templates in generated/ are written by
// `npm run generate` from rules.yml and dashboards/, and fill.libsonnet fills them as the generator
// does; test/mixin-jsonnet.test.ts vendors the folder as jb lays it out and checks the render equals
// the generator's for the defaults and for overrides.
local fill = import 'fill.libsonnet';
local rules = import 'generated/rules.json';
local recording(group) = std.length([r for r in group.rules if !std.objectHas(r, 'record')]) == 0;

{
  _config:: fill.defaults,

  local config = fill.check(self._config),
  local filled = fill.rules(rules, config),
  prometheusAlerts:: { groups: [g for g in filled.groups if !recording(g)] },
  prometheusRules:: { groups: [g for g in filled.groups if recording(g)] },
  grafanaDashboards:: {
    'acktrail-self.json': fill.dashboard(import 'generated/dashboards/acktrail-self.json', config),
    'celery.json': fill.dashboard(import 'generated/dashboards/celery.json', config),
    'event-flow.json': fill.dashboard(import 'generated/dashboards/event-flow.json', config),
    'pipeline-overview.json': fill.dashboard(import 'generated/dashboards/pipeline-overview.json', config),
    'queue-detail.json': fill.dashboard(import 'generated/dashboards/queue-detail.json', config),
  },
}
