// PROMETHEUS_SELECTOR's matchers go into every series selector of an expression, parsed with
// Prometheus' own grammar: strings, functions, durations and grouping labels are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkMatchers, PromqlError, withMatchers } from '../lib/data/promql.js';

const M = 'cluster="eu-1"';

test('every selector gets the matchers, with or without matchers of its own', () => {
  assert.equal(withMatchers('up', M), 'up{cluster="eu-1"}');
  assert.equal(
    withMatchers('sum by (queue) (acktrail_queue_messages_ready{role="work"}) > 0', M),
    'sum by (queue) (acktrail_queue_messages_ready{cluster="eu-1", role="work"}) > 0',
  );
  assert.equal(
    withMatchers('histogram_quantile(0.95, sum by (le) (rate(x_bucket[5m] offset 1h)))', M),
    'histogram_quantile(0.95, sum by (le) (rate(x_bucket{cluster="eu-1"}[5m] offset 1h)))',
  );
  assert.equal(withMatchers('x{}', M), 'x{cluster="eu-1"}');
  assert.equal(
    withMatchers('{__name__=~"acktrail_.*"}', M),
    '{cluster="eu-1", __name__=~"acktrail_.*"}',
  );
});

test('strings and label values that look like selectors are left alone', () => {
  assert.equal(
    withMatchers('label_replace(up, "dst", "a{b}", "src", "(.*)")', M),
    'label_replace(up{cluster="eu-1"}, "dst", "a{b}", "src", "(.*)")',
  );
  assert.equal(withMatchers('x{q="up{}"}', M), 'x{cluster="eu-1", q="up{}"}');
});

test('no selector configured: the expression as it was; a broken one is refused, not sent', () => {
  assert.equal(withMatchers('sum(rate(x[5m]))', ''), 'sum(rate(x[5m]))');
  assert.throws(() => withMatchers('sum(rate(x[5m])', M), PromqlError);
  assert.throws(() => checkMatchers('{cluster="a"}'), PromqlError);
  assert.throws(() => checkMatchers('cluster='), PromqlError);
  assert.equal(checkMatchers(' cluster="a", job=~"ack.*" '), 'cluster="a", job=~"ack.*"');
});

test('every expression of the alert rules takes the matchers and stays valid PromQL', () => {
  const rules = parse(
    readFileSync(new URL('../../prometheus/rules/acktrail.rules.yml', import.meta.url), 'utf8'),
  ) as { groups: { rules: { expr: string }[] }[] };
  const exprs = rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
  assert.ok(exprs.length > 20);
  for (const e of exprs) {
    const out = withMatchers(e, M);
    assert.doesNotThrow(() => withMatchers(out, M), e);
    assert.ok(out.includes(M), e);
  }
});
