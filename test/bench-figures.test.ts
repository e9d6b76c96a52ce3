// The bench report's figures: each bench records a figure against its target in the file the
// report names, and the report tabulates them; a figure is met only on the right side of its bound.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  REPORT_END,
  REPORT_START,
  figureTable,
  replaceReport,
  reportSection,
  target,
  type Figure,
} from '../bench/figures.js';

describe('bench figures against their targets', () => {
  let file: string;
  const recorded = () =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Figure);
  beforeEach(() => {
    file = join(mkdtempSync(join(tmpdir(), 'acktrail-figures-')), 'figures.jsonl');
    process.env.BENCH_FIGURES = file;
  });
  afterEach(() => {
    delete process.env.BENCH_FIGURES;
  });

  it('meets an upper bound at or under it, a lower bound at or over it, and never when unseen', () => {
    assert.equal(target('p99 ratio', 1.2, { atMost: 1.2 }), true);
    assert.equal(target('p99 ratio', 1.43, { atMost: 1.2 }), false);
    assert.equal(target('rate', 20_000, { atLeast: 20_000 }, 'events/s'), true);
    assert.equal(target('ratio', 0.36, { atLeast: 0.8 }), false);
    assert.equal(target('STALL', null, { atMost: 300 }, 's', 'not within 315 s'), false);
    assert.equal(target('NaN ratio', NaN, { atMost: 1 }), false);
    assert.deepEqual(recorded(), [
      { figure: 'p99 ratio', target: '<= 1.2', measured: '1.20', met: true },
      { figure: 'p99 ratio', target: '<= 1.2', measured: '1.43', met: false },
      { figure: 'rate', target: '>= 20,000 events/s', measured: '20,000 events/s', met: true },
      { figure: 'ratio', target: '>= 0.8', measured: '0.36', met: false },
      { figure: 'STALL', target: '<= 300 s', measured: 'not within 315 s', met: false },
      { figure: 'NaN ratio', target: '<= 1', measured: 'NaN', met: false },
    ]);
  });

  it('writes nothing when no report asked for the figures', () => {
    delete process.env.BENCH_FIGURES;
    assert.equal(target('p99 ratio', 1, { atMost: 1.2 }), true);
    assert.throws(() => readFileSync(file), { code: 'ENOENT' });
  });

  it('tabulates the figures as a markdown table, columns aligned, misses marked', () => {
    const t = figureTable([
      { bench: 'queues', figure: 'p99 / detailed', target: '<= 1.2', measured: '1.43', met: false },
      { bench: 'status', figure: 'STOP', target: '<= 120 s', measured: '16 s', met: true },
    ]);
    const lines = t.split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[0]!, /^\| bench +\| figure +\| target +\| measured \| met +\|$/);
    assert.match(lines[1]!, /^\| -+ \| -+ \| -+ \| -+ \| -+ \|$/);
    assert.match(
      lines[2]!,
      /^\| queues \| p99 \/ detailed \| <= 1\.2 +\| 1\.43 +\| \*\*not met\*\* \|$/,
    );
    assert.match(lines[3]!, /^\| status \| STOP +\| <= 120 s \| 16 s +\| met +\|$/);
    assert.equal(new Set(lines.map((l) => l.length)).size, 1);
  });

  it('writes one table per bench, between the markers, and only there', () => {
    const rows = [
      { bench: 'queues', figure: 'p99 / detailed', target: '<= 1.2', measured: '1.43', met: false },
      { bench: 'status', figure: 'STOP', target: '<= 120 s', measured: '16 s', met: true },
      { bench: 'queues', figure: 'RSS', target: '<= 150 MB', measured: '140 MB', met: true },
    ];
    const section = reportSection(rows, 'Run of today.');
    assert.match(section, /^<!-- report:/);
    assert.match(section, /2 of 3 figures meet their targets/);
    assert.deepEqual(
      [...section.matchAll(/^### (\w+)$/gm)].map((m) => m[1]),
      ['queues', 'status'],
    );
    assert.match(section, /### queues\n\n\| figure +\| target +\| measured \| met +\|\n/);
    assert.match(section, /\| RSS +\| <= 150 MB +\| 140 MB +\| met +\|/);
    const doc = `# Benchmarks\n\nintro\n\n${REPORT_START}\nold figures\n${REPORT_END}\n\n## More\n`;
    const written = replaceReport(doc, section);
    assert.ok(written.startsWith('# Benchmarks\n\nintro\n\n<!-- report:'));
    assert.ok(written.endsWith(`${REPORT_END}\n\n## More\n`));
    assert.doesNotMatch(written, /old figures/);
    assert.throws(() => replaceReport('# no markers', section), /no report markers/);
  });
});
