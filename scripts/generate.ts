// Generates acktrail's rules, Grafana dashboards and manifests from their one source
// (prometheus/mixin/rules.yml and prometheus/mixin/dashboards/ with prometheus/mixin/params.ts):
//   npm run generate                 prometheus/rules/acktrail.rules.yml, grafana/dashboards/ and
//                                    deploy/kubernetes/generated/ with the default parameters
//   npm run generate -- --check      writes nothing; exits 1 naming each file that differs
//   npm run generate -- --out DIR --selector 'cluster="eu-1"' --group-labels cluster,job \
//     --exporter-selector 'job="acktrail"' \
//     --runbook-url-pattern 'https://wiki.example/runbooks/%s' --alert-name-prefix Acktrail \
//     --param queueBacklog=5000 --param sloLatencySeconds=10 --param sloObjective=0.995
//                                    DIR/acktrail.rules.yml for your Prometheus and
//                                    DIR/dashboards/*.json for your Grafana; --param sets a
//                                    threshold or the confirmation SLO (THRESHOLDS in
//                                    prometheus/mixin/params.ts; an unknown name or a bad value
//                                    exits naming it)
// prometheus/mixin/generated/ holds the jsonnet mixin's templates (prometheus/mixin/mixin.libsonnet
// fills them from its `_config`). deploy/kubernetes/generated/ holds the PrometheusRule and one ConfigMap per Grafana dashboard
// (labelled for Grafana's dashboard sidecar). It also writes the configuration's JSON Schema
// (exporter/acktrail.schema.json) and reference (docs/configuration.md) from the zod schema
// (scripts/config-reference.ts), and docs/metrics.md's tables from the metrics catalogue
// (exporter/src/metrics/).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';
import {
  STAND_IN,
  dashboardTemplate,
  groupVariable,
  renderDashboard,
} from '../prometheus/mixin/dashboards.js';
import { DEFAULTS, parseThresholds, renderRules, type Params } from '../prometheus/mixin/params.js';
import { withTables } from '../exporter/src/metrics/docs.js';
import { configReference, configSchema } from './config-reference.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEMPLATE = join(ROOT, 'prometheus/mixin/rules.yml');
const DASHBOARDS = join(ROOT, 'prometheus/mixin/dashboards');
const HEADER = (params: string, from = 'prometheus/mixin/rules.yml') =>
  `# Generated from ${from} by \`npm run generate\` (scripts/generate.ts), ${params}: edit the source, not this.\n`;
const LABELS = { 'app.kubernetes.io/part-of': 'acktrail' };

export function rulesFile(params: Params = DEFAULTS): string {
  const which = params === DEFAULTS ? 'default parameters' : 'parameters given';
  return HEADER(which) + renderRules(readFileSync(TEMPLATE, 'utf8'), params);
}

function prometheusRule(): string {
  const { groups } = parse(rulesFile()) as { groups: unknown[] };
  return (
    HEADER('default parameters') +
    stringify(
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        metadata: { name: 'acktrail', labels: LABELS },
        spec: { groups },
      },
      { lineWidth: 0 },
    )
  );
}

/** Each dashboard source's file name with its text (prometheus/mixin/dashboards/). */
const dashboardSources = (): [string, string][] =>
  readdirSync(DASHBOARDS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, readFileSync(join(DASHBOARDS, f), 'utf8')]);

/** Each Grafana dashboard's file name with its JSON for these parameters. */
export function dashboards(params: Params = DEFAULTS): [string, string][] {
  return dashboardSources().map(([f, source]) => [f, renderDashboard(source, params)]);
}

function grafanaDashboards(): string {
  const maps = dashboards().map(([f, json]) =>
    stringify(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: `acktrail-dashboard-${f.replace(/\.json$/, '')}`,
          labels: { ...LABELS, grafana_dashboard: '1' },
          annotations: { grafana_folder: 'acktrail' },
        },
        data: { [f]: json },
      },
      { lineWidth: 0 },
    ),
  );
  return HEADER('default parameters', 'prometheus/mixin/dashboards') + maps.join('---\n');
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The jsonnet mixin's templates (prometheus/mixin/generated/), which its fill.libsonnet fills from
 * `_config` as this script fills the sources: the rules template as JSON (Debian's jsonnet 0.18
 * std.parseYaml fails on its multi-line expressions), each dashboard with stand-ins where the
 * parameters go, the default parameters, and the parts the mixin fills in: the stand-in matcher
 * and the variable added per group label.
 */
function mixinTemplates(): Record<string, string> {
  const dir = 'prometheus/mixin/generated';
  return {
    [`${dir}/rules.json`]: json(parse(readFileSync(TEMPLATE, 'utf8'))),
    [`${dir}/config.json`]: json(DEFAULTS),
    [`${dir}/parts.json`]: json({
      standIn: STAND_IN.matchers,
      groupVariable: groupVariable('', '', null),
    }),
    ...Object.fromEntries(
      dashboardSources().map(([f, source]) => [
        `${dir}/dashboards/${f}`,
        dashboardTemplate(source),
      ]),
    ),
  };
}

/** Every generated file (path from the repository's root) with its text, default parameters. */
export function generated(): Record<string, string> {
  const rules = rulesFile();
  return {
    'prometheus/rules/acktrail.rules.yml': rules,
    ...mixinTemplates(),
    'deploy/kubernetes/generated/prometheus-rule.yaml': prometheusRule(),
    'deploy/kubernetes/generated/grafana-dashboards.yaml': grafanaDashboards(),
    ...Object.fromEntries(dashboards().map(([f, json]) => [`grafana/dashboards/${f}`, json])),
    'exporter/acktrail.schema.json': json(configSchema()),
    'docs/configuration.md': configReference(),
    'docs/metrics.md': withTables(readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8')),
  };
}

function main(): number {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      out: { type: 'string' },
      selector: { type: 'string' },
      'exporter-selector': { type: 'string' },
      'group-labels': { type: 'string' },
      'replica-labels': { type: 'string' },
      'runbook-url-pattern': { type: 'string' },
      'alert-name-prefix': { type: 'string' },
      param: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport')[0]);
    return 0;
  }
  if (values.out) {
    const list = (s: string | undefined, d: string[]) =>
      s === undefined
        ? d
        : s
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean);
    const params: Params = {
      selector: values.selector ?? DEFAULTS.selector,
      exporterSelector: values['exporter-selector'] ?? DEFAULTS.exporterSelector,
      groupLabels: list(values['group-labels'], DEFAULTS.groupLabels),
      replicaLabels: list(values['replica-labels'], DEFAULTS.replicaLabels),
      runbookURLPattern: values['runbook-url-pattern'] ?? DEFAULTS.runbookURLPattern,
      alertNamePrefix: values['alert-name-prefix'] ?? DEFAULTS.alertNamePrefix,
      thresholds: parseThresholds(values.param ?? []),
    };
    mkdirSync(values.out, { recursive: true });
    const path = join(values.out, 'acktrail.rules.yml');
    writeFileSync(path, rulesFile(params));
    console.log(`wrote ${path}`);
    mkdirSync(join(values.out, 'dashboards'), { recursive: true });
    for (const [f, json] of dashboards(params)) {
      writeFileSync(join(values.out, 'dashboards', f), json);
      console.log(`wrote ${join(values.out, 'dashboards', f)}`);
    }
    return 0;
  }
  let stale = 0;
  for (const [name, text] of Object.entries(generated())) {
    const path = join(ROOT, name);
    let now = '';
    try {
      now = readFileSync(path, 'utf8');
    } catch {
      // not written yet
    }
    if (now === text) continue;
    if (values.check) {
      console.error(`${name} differs from its source: run npm run generate`);
      stale++;
    } else {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
      console.log(`wrote ${name}`);
    }
  }
  return stale ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    process.exit(main());
  } catch (err) {
    console.error(`generate: ${(err as Error).message}`);
    process.exit(2);
  }
}
