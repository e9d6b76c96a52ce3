// The mixin's three fields as one JSON document: `jsonnet prometheus/mixin/render.jsonnet`.
local mixin = import 'mixin.libsonnet';

{
  prometheusAlerts: mixin.prometheusAlerts,
  prometheusRules: mixin.prometheusRules,
  grafanaDashboards: mixin.grafanaDashboards,
}
