// The catalogue is the one declaration of every metric: each is made from it (never by a name
// written elsewhere), each is made once, each label is bounded, each name follows Prometheus'
// conventions, and docs/metrics.md's tables are what the catalogue says (npm run generate).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  COUNTER_SOURCES,
  METRICS,
  REFUSAL_REASONS,
  SKIP_REASONS,
  counter,
  family,
  histogram,
  metricSpec,
} from './catalogue.js';
import { withTables } from './docs.js';
import { LABEL_BOUNDS } from './label-bounds.js';
import { QUEUE_STATUSES } from '../broker/status.js';
import { TASK_STATE } from '../celery/events.js';
import { REJECT_FATES } from '../journeys/model/fate.js';
import { ORDERING_KINDS } from '../journeys/model/ordering.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SRC = join(HERE, '..');
const DOCS = join(SRC, '../../docs/metrics.md');

/** The exporter's product sources outside this folder (tests and fixtures aside). */
const sources = () =>
  readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !f.startsWith(HERE + '/') && !relative(SRC, f).split('/').includes('testing'))
    .map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }));

test('names are unique and follow Prometheus conventions; every help says something', () => {
  const names = METRICS.map((m) => m.name);
  assert.equal(new Set(names).size, names.length);
  for (const m of METRICS) {
    assert.match(m.name, /^acktrail_[a-z][a-z0-9_]*[a-z0-9]$/, m.name);
    assert.equal(
      m.name.endsWith('_total'),
      m.type === 'counter',
      `${m.name}: _total iff a counter`,
    );
    assert.ok(!/_(bucket|count|sum)$/.test(m.name), `${m.name}: a histogram's series suffix`);
    assert.ok(m.help.length > 10 && m.doc.length > 0, m.name);
    assert.equal(m.buckets !== undefined, m.type === 'histogram', `${m.name}: buckets`);
  }
});

test('every label of every metric is bounded, and every bound is a label in use', () => {
  const used = new Set(METRICS.flatMap((m) => m.labels));
  const unbounded = [...used].filter((l) => !Object.hasOwn(LABEL_BOUNDS, l));
  assert.deepEqual(unbounded, [], 'labels without a bound in label-bounds.ts');
  assert.deepEqual(
    Object.keys(LABEL_BOUNDS).filter((l) => !used.has(l)),
    [],
    'bounds of labels no metric has',
  );
});

test('no metric is made outside the catalogue: every registration takes its declaration', () => {
  const PROM = /new (Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\{\s*(\.\.\.(\w+)\()?/g;
  const HELPER = { Counter: 'counter', Gauge: 'gauge', Histogram: 'histogram' } as const;
  const wrong = sources().flatMap(({ file, text }) => [
    ...[...text.matchAll(PROM)]
      .filter((m) => m[3] !== HELPER[m[1] as keyof typeof HELPER])
      .map((m) => `${file}: new ${m[1]} without ...${HELPER[m[1] as keyof typeof HELPER]}()`),
    ...[...text.matchAll(/\bname: '(acktrail_[a-z_]+)'/g)].map(
      (m) => `${file}: names ${m[1]} itself`,
    ),
  ]);
  assert.deepEqual(wrong, []);
});

test('every metric in the catalogue is made once, by the helper of its type', () => {
  const CALL = /\b(counter|gauge|histogram|family)\(\s*'(acktrail_[a-z_]+)'/g;
  const made = new Map<string, string[]>();
  for (const { file, text } of sources())
    for (const m of text.matchAll(CALL)) made.set(m[2]!, [...(made.get(m[2]!) ?? []), file]);
  const wrong = METRICS.flatMap((m) => {
    const where = made.get(m.name) ?? [];
    return where.length === 1
      ? []
      : [`${m.name}: made ${where.length} times (${where.join(', ')})`];
  });
  assert.deepEqual(wrong, []);
  assert.deepEqual(
    [...made.keys()].filter((n) => !METRICS.some((m) => m.name === n)),
    [],
    'names made that the catalogue lacks',
  );
});

test('a helper refuses a name of another type, and a histogram without its buckets', () => {
  assert.throws(() => metricSpec('acktrail_nothing_total'), /not in the metrics catalogue/);
  // The types refuse these at compile time; at run time the catalogue does too.
  const anyName = (n: string) => n as never;
  assert.throws(() => counter(anyName('acktrail_part_up')), /is a gauge, not a counter/);
  assert.throws(
    () => histogram('acktrail_provider_request_duration_seconds'),
    /buckets come from the configuration/,
  );
  assert.deepEqual(histogram('acktrail_provider_request_duration_seconds', [1, 2]).buckets, [1, 2]);
  assert.deepEqual(family('acktrail_queue_messages_ready').type, 'gauge');
});

test("docs/metrics.md's tables are the catalogue's (npm run generate writes them)", () => {
  const text = readFileSync(DOCS, 'utf8');
  assert.equal(withTables(text), text, 'docs/metrics.md differs: run npm run generate');
  for (const m of METRICS) assert.ok(text.includes(`| \`${m.name}\``), `${m.name} has no row`);
});

test("a label's fixed values are the code's own: one list, the same list, or literals it writes", () => {
  const values = (name: string, label: string) => metricSpec(name).values?.[label];
  // The lists the code takes from the catalogue (the receiver's, Celery's and the stats
  // collector's) are one list each; where the journey model keeps its own (it imports no
  // metrics), the catalogue's is the same list.
  const owned = new Set<readonly string[]>([REFUSAL_REASONS, SKIP_REASONS, COUNTER_SOURCES]);
  assert.equal(values('acktrail_ingest_refused_total', 'reason'), REFUSAL_REASONS);
  assert.equal(values('acktrail_celery_events_skipped_total', 'reason'), SKIP_REASONS);
  assert.equal(values('acktrail_rabbitmq_counters_source', 'source'), COUNTER_SOURCES);
  const lists: [string, string, readonly string[]][] = [
    ['acktrail_messages_rejected_total', 'fate', REJECT_FATES],
    ['acktrail_aggregate_ordering_total', 'kind', ORDERING_KINDS],
    ['acktrail_celery_tasks_total', 'state', Object.values(TASK_STATE)],
    ['acktrail_queue_status', 'status', [...QUEUE_STATUSES, 'unknown']],
  ];
  for (const [name, label, list] of lists)
    assert.deepEqual(values(name, label), [...list], `${name}{${label}}`);
  // Elsewhere each value is written as a literal in the exporter's code.
  const code = sources()
    .map((s) => s.text)
    .join('\n');
  for (const m of METRICS)
    for (const [label, allowed] of Object.entries(m.values ?? {})) {
      assert.ok(m.labels.includes(label), `${m.name}: values of a label it has not (${label})`);
      if (owned.has(allowed)) continue;
      for (const v of allowed)
        assert.ok(code.includes(`'${v}'`), `${m.name}{${label}="${v}"} is written nowhere`);
    }
});
