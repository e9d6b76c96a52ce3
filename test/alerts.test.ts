// The alert rules as code: promtool accepts the rules and the Prometheus configuration, the
// promtool unit tests pass, and every alert carries what a page needs and is covered by a unit
// test that makes it fire and one where it stays quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { REPO_ROOT } from '@acktrail/orders-example/testing';

const run = promisify(execFile);
const RULES = join(REPO_ROOT, 'prometheus/rules/acktrail.rules.yml');
const UNIT_TESTS = join(REPO_ROOT, 'prometheus/tests/acktrail.rules.test.yml');

interface Rule {
  alert?: string;
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

test('the promtool unit tests pass', async () => {
  // promtool exits 1 and says which case failed (on stderr) when a unit test fails.
  const result = await run('promtool', ['test', 'rules', UNIT_TESTS]).catch((err: unknown) => {
    const e = err as { stdout?: string; stderr?: string };
    return assert.fail(`promtool test rules failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  });
  const { stderr } = result;
  assert.doesNotMatch(stderr, /FAILED/);
});

test('every alert has a severity, a summary, a description and a runbook that exists', () => {
  assert.ok(alerts.length >= 13);
  for (const a of alerts) {
    assert.match(a.labels?.severity ?? '', /^(critical|warning)$/, `${a.alert} severity`);
    const { summary, description, runbook_url: runbook = '' } = a.annotations ?? {};
    assert.ok(summary, `${a.alert} summary`);
    assert.ok(description, `${a.alert} description`);
    assert.match(runbook, /^docs\/runbooks\/[a-z0-9-]+\.md$/, `${a.alert} runbook_url`);
    assert.ok(existsSync(join(REPO_ROOT, runbook)), `${a.alert}: ${runbook} exists`);
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
