import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Registry } from 'prom-client';
import { Exemplars } from './exemplars.js';
import {
  CachedFamilies,
  familyHeader,
  familySamples,
  labelsText,
  type ExpositionFormat,
  type FamilySpec,
  type SeriesLine,
} from './families.js';
import { openMetricsFamilies } from './openmetrics.js';

const HELP = 'Odd "help" with a \\ backslash\nand a new line.';
const SERIES: [Record<string, string>, number][] = [
  [{ vhost: '/', queue: 'orders', role: 'work' }, 3],
  [{ vhost: 'a"b', queue: 'back\\slash\nnew line', role: 'dead_letter' }, 0.25],
  [{ vhost: 'v', queue: 'nan', role: 'work' }, NaN],
  [{ vhost: 'v', queue: 'inf', role: 'work' }, Infinity],
];
const lines = (): SeriesLine[] => SERIES.map(([l, v]) => [labelsText(l), v]);
const written = (spec: FamilySpec, series: SeriesLine[], format: ExpositionFormat) =>
  familyHeader(spec, format) + familySamples(spec, series);

/** prom-client's own exposition of the same family (NaN spelled as both formats spell it). */
async function promClient(type: 'gauge' | 'counter', name: string): Promise<string> {
  const registry = new Registry();
  const labelNames = ['vhost', 'queue', 'role'];
  if (type === 'gauge') {
    const g = new Gauge({ name, help: HELP, labelNames, registers: [registry] });
    for (const [l, v] of SERIES) g.set(l, v);
  } else {
    const c = new Counter({ name, help: HELP, labelNames, registers: [registry] });
    for (const [l, v] of SERIES) if (Number.isFinite(v)) c.inc(l, v);
  }
  return (await registry.metrics()).replace(/ Nan$/gm, ' NaN');
}

test('a gauge family is written as prom-client writes it, in both formats', async () => {
  const spec = { name: 'x_depth', help: HELP, type: 'gauge' } as const;
  const expected = await promClient('gauge', spec.name);
  assert.equal(written(spec, lines(), 'text').trim(), expected.trim());
  assert.equal(
    written(spec, lines(), 'openmetrics'),
    openMetricsFamilies(expected, new Exemplars()),
  );
});

test('a counter family: _total on its samples, not on its OpenMetrics family name', async () => {
  const spec = { name: 'x_published_total', help: HELP, type: 'counter' } as const;
  const finite = lines().filter(([, v]) => Number.isFinite(v));
  const expected = await promClient('counter', spec.name);
  assert.equal(written(spec, finite, 'text').trim(), expected.trim());
  const om = written(spec, finite, 'openmetrics');
  assert.equal(om, openMetricsFamilies(expected, new Exemplars()));
  assert.match(om, /^# TYPE x_published counter$/m);
  assert.match(om, /^x_published_total\{vhost="\/",queue="orders",role="work"\} 3$/m);
});

test('cached families: written once per answer, samples shared by both formats', async () => {
  let writes = 0;
  let value = 1;
  const spec = { name: 'x_empty', help: 'Nothing yet.', type: 'gauge' } as const;
  const cached = new CachedFamilies([
    [{ name: 'x_total', help: 'X.', type: 'counter' }, () => (writes++, [['', value]])],
    [spec, () => []],
  ]);
  const read = async (format: ExpositionFormat) =>
    Buffer.concat(await Promise.all(cached.pieces(format).map((p) => p.read()))).toString();
  assert.equal(
    await read('text'),
    '# HELP x_total X.\n# TYPE x_total counter\nx_total 1\n' + familyHeader(spec, 'text'),
  );
  assert.match(await read('openmetrics'), /^# TYPE x counter\nx_total 1\n/m);
  assert.equal(writes, 1, 'one write for both formats');
  assert.equal(cached.pieces('text')[1], cached.pieces('openmetrics')[1], 'the same bytes');
  value = 2;
  assert.match(await read('text'), /^x_total 1$/m, 'served from the cache until invalidated');
  cached.invalidate();
  assert.match(await read('text'), /^x_total 2$/m);
  assert.equal(writes, 2);

  // A family without series says HELP and TYPE, as prom-client does.
  const registry = new Registry();
  new Gauge({ name: spec.name, help: spec.help, labelNames: ['q'], registers: [registry] });
  assert.equal(familyHeader(spec, 'text').trim(), (await registry.metrics()).trim());
});
