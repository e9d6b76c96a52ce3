// The mixin's templates (generated/, written by `npm run generate` from rules.yml and dashboards/)
// filled from a `_config`, as scripts/generate.ts fills them from its parameters
// (prometheus/mixin/params.ts: renderRules, fillThresholds; dashboards.ts: renderDashboard):
// test/mixin-jsonnet.test.ts renders both for the same parameters and finds them equal.
local defaults = import 'generated/config.json';
// The stand-in matcher the dashboards' templates carry in every selector (dashboards.ts STAND_IN),
// and the variable added per group label (dashboards.ts groupVariable).
local parts = import 'generated/parts.json';
local groupVariable = parts.groupVariable;
local standIn = parts.standIn;

// jsonnet 0.18's std.strReplace is native and fast; std.format (`%`) and std.findSubstr are not:
// the tables below are built once per render and every string only goes through strReplace.
local has(s, what) = std.length(std.strReplace(s, what, '')) != std.length(s);
local replaceAll(s, pairs) =
  if !has(s, '${') && !has(s, standIn) then s
  else std.foldl(function(out, p) std.strReplace(out, p[0], p[1]), pairs, s);

// The runbook URL of a slug: the pattern's (first) %s replaced, the position found once.
local runbookURL(pattern) =
  local at = std.findSubstr('%s', pattern)[0];
  function(slug) pattern[:at] + slug + pattern[at + 2:];

// A number as the rules write it: 12 significant digits, no float noise (1 - 0.99 is 0.01). The
// generator writes 1e-05 as 0.00001 (JavaScript's form): the same number to PromQL.
local num(n) = std.format('%.12g', n);

// A bucket's `le` as a regex inside a PromQL string for Prometheus 2 (`30`) and 3 (`30.0`).
local leRegex(n) =
  if std.floor(n) == n then num(n) + '(\\\\.0)?' else std.strReplace(num(n), '.', '\\\\.');

local check(c) =
  local unknown = [k for k in std.objectFieldsAll(c.thresholds) if !std.objectHas(defaults.thresholds, k)];
  local braces(s) = has(s, '{') || has(s, '}');
  assert std.length(unknown) == 0 :
         'acktrail _config.thresholds: unknown %s; one of %s' % [
    std.join(', ', unknown),
    std.join(', ', std.objectFields(defaults.thresholds)),
  ];
  assert !braces(c.selector) : 'acktrail _config.selector: matchers only, without braces (cluster="eu-1")';
  assert !braces(c.exporterSelector) && std.stripChars(c.exporterSelector, ' ') != '' :
         "acktrail _config.exporterSelector: matchers of the exporter's targets, without braces (job=\"acktrail\")";
  assert has(c.runbookURLPattern, '%s') :
         "acktrail _config.runbookURLPattern: needs %s where the runbook's slug goes";
  c;

// `${t.name}`, `${t.name%}`, `${t.name:le}` and `${t.sloErrorBudget}` with their values.
local thresholdPairs(t) =
  local values = t { sloErrorBudget: 1 - t.sloObjective };
  std.flattenArrays([
    [
      ['${t.' + name + '}', num(values[name])],
      ['${t.' + name + '%}', num(values[name] * 100)],
      ['${t.' + name + ':le}', leRegex(values[name])],
    ]
    for name in std.objectFieldsAll(values)
  ]);

// Every string of a JSON value through f.
local strings(v, f) =
  if std.isObject(v) then std.mapWithKey(function(k, x) strings(x, f), v)
  else if std.isArray(v) then [strings(x, f) for x in v]
  else if std.isString(v) then f(v)
  else v;

local rule(r, c, thresholds, exprPairs, runbook) =
  local filled = strings(r, function(s) replaceAll(s, thresholds));
  local expr = replaceAll(filled.expr, exprPairs);
  if !std.objectHas(r, 'alert') then filled { expr: expr }
  else
    local annotations = if std.objectHas(filled, 'annotations') then filled.annotations else {};
    filled {
      alert: if std.startsWith(r.alert, c.alertNamePrefix) then r.alert else c.alertNamePrefix + r.alert,
      expr: expr,
      annotations: {
        [k]: annotations[k]
        for k in std.objectFields(annotations)
        if k != 'runbook'
      } + (
        if std.objectHas(annotations, 'runbook')
        then { runbook_url: runbook(annotations.runbook) }
        else {}
      ),
    };

// The selector's two places: a selector's braces with it (`${sel}`), and a selector's own
// matchers after it (`${matchers}`); both nothing when it is empty.
local selectorPairs(matchers) = [
  ['${sel}', if matchers == '' then '' else '{' + matchers + '}'],
  ['${matchers}', if matchers == '' then '' else matchers + ', '],
];

local rules(template, c) =
  local sel = std.stripChars(c.selector, ' \t\n');
  local thresholds = thresholdPairs(c.thresholds);
  local runbook = runbookURL(c.runbookURLPattern);
  local exprPairs = [
    ['${groups}, ', std.join('', [l + ', ' for l in c.groupLabels])],
    ['${groups}', std.join(', ', c.groupLabels)],
    ['${replicaLabels}', std.join(', ', c.replicaLabels)],
  ] + selectorPairs(sel) + [
    ['${exporterSel}', std.join(', ', [x for x in [sel, std.stripChars(c.exporterSelector, ' \t\n')] if x != ''])],
  ];
  { groups: [
    g { rules: [rule(r, c, thresholds, exprPairs, runbook) for r in g.rules] }
    for g in template.groups
  ] };

local dashboard(template, c) =
  local names = [v.name for v in template.templating.list];
  local added = [l for l in c.groupLabels if !std.member(names, l)];
  local sel = std.stripChars(c.selector, ' \t\n');
  local matchers(labels) = std.join(', ', [x for x in [sel] + [l + '=~"$' + l + '"' for l in labels] if x != '']);
  // The generator's stand-in matcher where the selector and the group labels' matchers go:
  // `{S}` after a selector without braces, `{S, ` before a selector's own matchers.
  local pairs = thresholdPairs(c.thresholds) + [
    ['{' + standIn + '}', '${sel}'],
    [standIn + ', ', '${matchers}'],
    ['${replicaLabels}', std.join(', ', c.replicaLabels)],
  ] + selectorPairs(matchers(added));
  local fill(s) =
    local name = s[4:std.length(s) - 1];
    if std.startsWith(s, '${t.') && std.endsWith(s, '}') && std.objectHasAll(c.thresholds, name)
    then std.parseJson(num(c.thresholds[name]))
    else replaceAll(s, pairs);
  local d = strings(template, fill);
  local list = d.templating.list;
  local queries = [i for i in std.range(0, std.length(list) - 1) if list[i].type == 'query'];
  local at = if std.length(queries) == 0 then -1 else queries[0];
  local variable(j) =
    local label = added[j];
    local mj = matchers(added[:j]);
    local series = if mj == '' then 'acktrail_build_info' else 'acktrail_build_info{' + mj + '}';
    local query = 'label_values(' + series + ', ' + label + ')';
    groupVariable {
      name: label,
      label: label,
      datasource: list[at].datasource,
      query: { query: query, refId: 'vars' },
      definition: query,
    };
  d {
    templating+: {
      list: std.flattenArrays([
        (if i == at then [variable(j) for j in std.range(0, std.length(added) - 1)] else [])
        + [list[i]]
        for i in std.range(0, std.length(list) - 1)
      ]),
    },
  };

{
  defaults: defaults,
  check: check,
  rules: rules,
  dashboard: dashboard,
}
