// The alert rules as code: promtool accepts the rules and the Prometheus configuration, the
// promtool unit tests pass (one Prometheus per pipeline, and one shared by clusters), every alert
// carries what a page needs and is covered by a unit test that makes it fire and one where it
// stays quiet, and rules generated with other parameters (a selector, other group labels, a
// prefix, a runbook address) do what they say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { METRICS } from '@acktrail/exporter';
import { REPO_ROOT } from '@acktrail/testing';
import { DEFAULTS, parseThresholds, renderRules } from '../prometheus/mixin/params.js';
import { dashboards, rulesFile } from '../scripts/generate.js';

const run = promisify(execFile);
const RULES = join(REPO_ROOT, 'prometheus/rules/acktrail.rules.yml');
const UNIT_TESTS = join(REPO_ROOT, 'prometheus/tests/acktrail.rules.test.yml');
const SHARED_TESTS = join(REPO_ROOT, 'prometheus/tests/shared.rules.test.yml');
const RUNBOOKS = 'https://github.com/acktrail/acktrail/blob/main/docs/runbooks/';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = (
  parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }
).groups.flatMap((g) => g.rules);
const alerts = rules.filter((r) => r.alert);

test('promtool accepts both configurations and the rules', async () => {
  const { stdout } = await run('promtool', [
    'check',
    'config',
    join(REPO_ROOT, 'prometheus/prometheus.yml'),
  ]);
  assert.match(stdout, /SUCCESS: 1 rule files found/);
  assert.match(stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
  // The compose stack's configuration: the same rules, other addresses.
  const compose = await run('promtool', [
    'check',
    'config',
    join(REPO_ROOT, 'prometheus/prometheus.compose.yml'),
  ]);
  assert.match(compose.stdout, /SUCCESS: 1 rule files found/);
});

/** promtool test rules; fails with promtool's own account (it exits 1 and says which case). */
async function promtoolTest(file: string) {
  const result = await run('promtool', ['test', 'rules', file]).catch((err: unknown) => {
    const e = err as { stdout?: string; stderr?: string };
    return assert.fail(`promtool test rules failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  });
  assert.doesNotMatch(result.stderr, /FAILED/);
}

test('the promtool unit tests pass', async () => {
  await promtoolTest(UNIT_TESTS);
});

test('a Prometheus shared by clusters: one alert per sick cluster, with its labels', async () => {
  await promtoolTest(SHARED_TESTS);
});

test('the committed rules are the template with the default parameters', () => {
  assert.equal(
    readFileSync(RULES, 'utf8'),
    rulesFile(),
    'prometheus/rules/acktrail.rules.yml is stale: run npm run generate',
  );
});

test('other parameters: a selector, group labels, a prefix and a runbook address', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-rules-'));
  const params = {
    ...DEFAULTS,
    selector: 'cluster="a"',
    groupLabels: ['cluster'],
    alertNamePrefix: 'Team',
    runbookURLPattern: 'https://wiki.example/runbooks/%s',
  };
  const template = readFileSync(join(REPO_ROOT, 'prometheus/mixin/rules.yml'), 'utf8');
  writeFileSync(join(dir, 'rules.yml'), renderRules(template, params));
  const check = await run('promtool', ['check', 'rules', join(dir, 'rules.yml')]);
  assert.match(check.stdout, /SUCCESS/);
  // Both clusters' "orders" has messages and no consumer: the selector sees cluster a only.
  const series = (metric: string, cluster: string, value: number) => ({
    series: `${metric}{cluster="${cluster}",job="j",vhost="/",queue="orders",role="work"}`,
    values: `${value}x5`,
  });
  writeFileSync(
    join(dir, 'test.yml'),
    JSON.stringify({
      rule_files: ['rules.yml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            ...['a', 'b'].flatMap((c) => [
              series('acktrail_queue_messages_ready', c, 7),
              series('acktrail_queue_consumers', c, 0),
            ]),
            // Another target of cluster a is down, and the exporter of cluster b: neither is
            // this selector's exporter (exporterSelector, job="acktrail", with the selector).
            { series: 'up{cluster="a",job="node",instance="n1:9100"}', values: '0x5' },
            { series: 'up{cluster="b",job="acktrail",instance="x:9464"}', values: '0x5' },
            { series: 'up{cluster="a",job="acktrail",instance="e:9464"}', values: '1x5' },
            { series: 'up{cluster="a",job="acktrail",instance="f:9464"}', values: '0x5' },
          ],
          alert_rule_test: [
            {
              eval_time: '5m',
              alertname: 'TeamExporterDown',
              exp_alerts: [
                {
                  exp_labels: {
                    severity: 'critical',
                    cluster: 'a',
                    job: 'acktrail',
                    instance: 'f:9464',
                  },
                  exp_annotations: {
                    summary: 'Prometheus cannot scrape the acktrail exporter at f:9464',
                    description: 'Every other acktrail alert is blind while this fires.',
                    runbook_url: 'https://wiki.example/runbooks/acktrail-exporter-down',
                  },
                },
              ],
            },
            { eval_time: '5m', alertname: 'TeamExporterAbsent', exp_alerts: [] },
            {
              eval_time: '3m',
              alertname: 'TeamConsumersDown',
              exp_alerts: [
                {
                  exp_labels: { severity: 'warning', cluster: 'a', vhost: '/', queue: 'orders' },
                  exp_annotations: {
                    summary: 'Queue orders has messages and no consumer',
                    description:
                      'Work is waiting in queue orders (vhost /) and nothing consumes it: the workers are down or disconnected.',
                    runbook_url: 'https://wiki.example/runbooks/consumers-down',
                  },
                },
              ],
            },
          ],
        },
      ],
    }),
  );
  await promtoolTest(join(dir, 'test.yml'));
  // A wrong parameter is refused by name, before any rule is written.
  assert.throws(
    () => renderRules(template, { ...params, groupLabels: ['clu-ster'] }),
    /groupLabels/,
  );
  assert.throws(() => renderRules(template, { ...params, selector: '{cluster="a"}' }), /selector/);
  assert.throws(
    () => renderRules(template, { ...params, exporterSelector: '' }),
    /exporterSelector/,
  );
  assert.throws(
    () => renderRules(template, { ...params, runbookURLPattern: 'https://x' }),
    /runbookURLPattern/,
  );
});

test('thresholds and the SLO as parameters: the rules and the dashboards compare with them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-thresholds-'));
  const thresholds = parseThresholds([
    'queueBacklog=5000',
    'sloLatencySeconds=10',
    'sloObjective=0.995',
    'celeryFailureRatio=0.35',
  ]);
  const params = { ...DEFAULTS, thresholds };
  const template = readFileSync(join(REPO_ROOT, 'prometheus/mixin/rules.yml'), 'utf8');
  const text = renderRules(template, params);
  writeFileSync(join(dir, 'rules.yml'), text);
  assert.match(
    (await run('promtool', ['check', 'rules', join(dir, 'rules.yml')])).stdout,
    /SUCCESS/,
  );
  const generatedRules = (parse(text) as { groups: { rules: Rule[] }[] }).groups.flatMap(
    (g) => g.rules,
  );
  const rule = (name: string) => generatedRules.find((r) => r.alert === `Acktrail${name}`)!;
  assert.match(rule('QueueBacklogGrowing').expr, /role="work"\}\) > 5000\n/);
  const slo = rule('ConfirmationLatencySLOBurn');
  const recorded = generatedRules.filter((r) => r.record?.startsWith('acktrail:confirmation'));
  assert.equal(recorded.length, 4);
  // Both forms of the bucket: 2.x stores `10`, 3.x `10.0`.
  for (const r of recorded) assert.ok(r.expr.includes('le=~"10(\\\\.0)?"'), r.expr);
  assert.match(slo.expr, /> \(14\.4 \* 0\.005\)/, 'the error budget is 1 - the objective');
  assert.match(slo.annotations?.summary ?? '', /the 10 s latency budget/);
  assert.match(rule('CeleryTaskFailureRatioHigh').annotations?.description ?? '', /More than 35 %/);
  assert.doesNotMatch(text, /\$\{/, 'no placeholder left');
  // The dashboards draw the same lines: the overview's SLO threshold at 10 s.
  const overview = dashboards(params).find(([f]) => f === 'pipeline-overview.json')![1];
  assert.match(overview, /"value": 10\b/);
  assert.match(overview, /99\.5 % of confirmations within 10 s/);
  assert.doesNotMatch(overview, /\$\{t\./);
  // The defaults are the committed rules; a wrong name or value is refused by name.
  assert.deepEqual(parseThresholds([]), DEFAULTS.thresholds);
  assert.throws(() => parseThresholds(['queueBacklogg=1']), /--param queueBacklogg: unknown/);
  assert.throws(() => parseThresholds(['sloObjective=99']), /sloObjective: "99" is not a ratio/);
  assert.throws(() => parseThresholds(['queueBacklog=-5']), /queueBacklog: "-5" is not a positive/);
});

test('every alert has a severity, a summary, a description, a for: and a runbook that exists', () => {
  assert.ok(alerts.length >= 13);
  for (const a of alerts) {
    assert.match(a.labels?.severity ?? '', /^(critical|warning)$/, `${a.alert} severity`);
    const { summary, description, runbook_url: runbook = '' } = a.annotations ?? {};
    assert.ok(summary, `${a.alert} summary`);
    assert.ok(description, `${a.alert} description`);
    assert.ok(runbook.startsWith(RUNBOOKS), `${a.alert} runbook_url is absolute: ${runbook}`);
    const file = `docs/runbooks/${runbook.slice(RUNBOOKS.length)}`;
    assert.match(file, /^docs\/runbooks\/[a-z0-9-]+\.md$/, `${a.alert} runbook_url`);
    assert.ok(existsSync(join(REPO_ROOT, file)), `${a.alert}: ${file} exists`);
    assert.match(a.alert ?? '', /^Acktrail[A-Z]/, 'every name has the prefix');
    // A blip never pages: every alert holds for a while first.
    assert.match(a.for ?? '', /^\d+[smh]$/, `${a.alert} has a for:`);
  }
});

test('every alert has a unit test where it fires and one where it stays quiet', () => {
  const unit = parse(readFileSync(UNIT_TESTS, 'utf8')) as {
    tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
  };
  const cases = unit.tests.flatMap((t) => t.alert_rule_test ?? []);
  for (const name of new Set(alerts.map((a) => a.alert!))) {
    const mine = cases.filter((c) => c.alertname === name);
    assert.ok(
      mine.some((c) => c.exp_alerts.length > 0),
      `${name} fires in a unit test`,
    );
    assert.ok(
      mine.some((c) => c.exp_alerts.length === 0),
      `${name} stays quiet in a unit test`,
    );
  }
});

test("every acktrail metric a rule names is in the exporter's metrics catalogue", () => {
  const catalogued = new Set<string>(METRICS.map((m) => m.name));
  const { groups } = parse(rulesFile()) as { groups: { rules: { expr: string }[] }[] };
  const named = groups.flatMap((g) =>
    g.rules.flatMap((r) => [...r.expr.matchAll(/\backtrail_[a-z_]+/g)].map((m) => m[0])),
  );
  assert.ok(named.length > 20, `${named.length} names`);
  const missing = named
    .map((n) => n.replace(/_(bucket|count|sum)$/, ''))
    .filter((n) => !catalogued.has(n));
  assert.deepEqual([...new Set(missing)], []);
});
