// The Grafana dashboards for a set of parameters (prometheus/mixin/params.ts), from their source
// in prometheus/mixin/dashboards/: the selector goes into every query (panels and variables), and
// each group label the source has no variable for gets one (label_values over acktrail_build_info,
// "All" by default), placed before `job` and matched in every query after it, so that a Grafana
// reading a Prometheus shared by many clusters shows one cluster (namespace) at a time; a source's
// `${replicaLabels}` becomes the labels that tell replicas apart (merged with max). Queries
// are rewritten with the dashboard's own PromQL rewriter (Prometheus' grammar, never a pattern).
import { withMatchers } from '../../dashboard/lib/data/promql.js';
import { DEFAULTS, checkParams, fillThresholds, type Params } from './params.js';

interface Variable {
  name: string;
  type: string;
  query?: string | { query: string; refId?: string };
  definition?: string;
  datasource?: unknown;
  [key: string]: unknown;
}
interface Panel {
  targets?: { expr: string; [key: string]: unknown }[];
  [key: string]: unknown;
}
interface Dashboard {
  templating: { list: Variable[] };
  panels: Panel[];
  [key: string]: unknown;
}

// Grafana's own variables where PromQL wants a duration (`[$__rate_interval]`): a duration no one
// writes stands in for each while the query is parsed.
const BUILTINS = ['$__rate_interval', '$__interval', '$__range'];
const standIn = (i: number) => `${9_999_990 + i}s`;

function rewrite(expr: string, matchers: string): string {
  if (!matchers) return expr;
  // A variable's query is Grafana's label_values(series, label): the series is PromQL.
  const values = /^label_values\((.+),\s*(\w+)\)$/s.exec(expr);
  if (values) return `label_values(${rewrite(values[1]!, matchers)}, ${values[2]})`;
  let parsed = expr;
  BUILTINS.forEach((b, i) => (parsed = parsed.replaceAll(b, standIn(i))));
  let out = withMatchers(parsed, matchers);
  BUILTINS.forEach((b, i) => (out = out.replaceAll(standIn(i), b)));
  return out;
}

export const groupVariable = (label: string, query: string, datasource: unknown): Variable => ({
  name: label,
  label,
  type: 'query',
  datasource,
  query: { query, refId: 'vars' },
  definition: query,
  refresh: 2,
  includeAll: true,
  multi: true,
  allValue: '.*',
  current: { selected: true, text: ['All'], value: ['$__all'] },
  sort: 1,
});

/** The dashboard JSON (text) for these parameters, from its source's text. */
export function renderDashboard(source: string, p: Params): string {
  checkParams(p);
  const filled = fillThresholds(source, p.thresholds, true).replaceAll(
    '${replicaLabels}',
    p.replicaLabels.join(', '),
  );
  return JSON.stringify(parameterise(JSON.parse(filled) as Dashboard, p), null, 2) + '\n';
}

/**
 * Stand-ins the jsonnet mixin replaces from its `_config` (prometheus/mixin/fill.libsonnet):
 * a matcher in every selector where the selector and the group labels' matchers go, and a label
 * name where the replica labels go. Both are valid PromQL, so the queries are rewritten by the
 * same code as every other dashboard's.
 */
export const STAND_IN = {
  matchers: 'acktrail_matchers_="_"',
  replicaLabels: 'acktrail_replica_labels_',
};

/**
 * The dashboard as the jsonnet mixin's template: thresholds left as `${t.name}`, the replica
 * labels as `${replicaLabels}`, and the stand-in matcher in every selector; no group variables
 * (the mixin adds them for its `_config`).
 */
export function dashboardTemplate(source: string): string {
  const d = JSON.parse(source.replaceAll('${replicaLabels}', STAND_IN.replicaLabels)) as Dashboard;
  const text = JSON.stringify(
    parameterise(d, { ...DEFAULTS, selector: STAND_IN.matchers, groupLabels: [] }),
    null,
    2,
  );
  return text.replaceAll(STAND_IN.replicaLabels, '${replicaLabels}') + '\n';
}

/** The selector and a variable per group label the source lacks, in every query. */
function parameterise(d: Dashboard, p: Params): Dashboard {
  const has = new Set(d.templating.list.map((v) => v.name));
  const added = p.groupLabels.filter((l) => !has.has(l));
  const selector = p.selector.trim();
  const matchers = (labels: string[]) =>
    [selector, ...labels.map((l) => `${l}=~"$${l}"`)].filter(Boolean).join(', ');

  const list: Variable[] = [];
  const anchor = d.templating.list.findIndex((v) => v.type === 'query');
  d.templating.list.forEach((v, i) => {
    if (i === anchor)
      added.forEach((label, j) =>
        list.push(
          groupVariable(
            label,
            rewrite(`label_values(acktrail_build_info, ${label})`, matchers(added.slice(0, j))),
            v.datasource,
          ),
        ),
      );
    if (v.type === 'query' && typeof v.query === 'object') {
      const query = rewrite(v.query.query, matchers(anchor >= 0 && i >= anchor ? added : []));
      list.push({ ...v, query: { ...v.query, query }, definition: query });
    } else list.push(v);
  });
  d.templating.list = list;
  d.panels = d.panels.map((panel) =>
    panel.targets
      ? {
          ...panel,
          targets: panel.targets.map((t) => ({ ...t, expr: rewrite(t.expr, matchers(added)) })),
        }
      : panel,
  );
  return d;
}
