// The mixin's three fields as one JSON document: `jsonnet prometheus/mixin/render.jsonnet`, or for
// other parameters (the `_config` fields to change):
//   jsonnet --tla-code 'config={selector: "cluster=\"eu-1\"", thresholds: {queueBacklog: 5000}}' \
//     prometheus/mixin/render.jsonnet
function(config={})
  local mixin = (import 'mixin.libsonnet') + {
    _config+:: { [k]: config[k] for k in std.objectFields(config) if k != 'thresholds' }
               + { thresholds+: if std.objectHas(config, 'thresholds') then config.thresholds else {} },
  };
{
  prometheusAlerts: mixin.prometheusAlerts,
  prometheusRules: mixin.prometheusRules,
  grafanaDashboards: mixin.grafanaDashboards,
}
