// Figures against their targets: a bench records each with `target()`, `npm run bench -- report`
// reads them back and prints them as one table.
import { appendFileSync } from 'node:fs';
import { fmt } from './lib.js';

/** A figure against its target, as `npm run bench -- report` tabulates it. */
export interface Figure {
  figure: string;
  /** `<= 1.2`, `>= 20,000 events/s`: the bound with its unit. */
  target: string;
  measured: string;
  met: boolean;
}

/**
 * Records a figure against its target: appended as a JSON line to the file BENCH_FIGURES names
 * (the report sets it for each bench it runs); nothing otherwise, the bench prints its own lines.
 * `measured` null means not seen within the bench's bound (`unseen` says which).
 */
export function target(
  figure: string,
  measured: number | null,
  limit: { atMost: number } | { atLeast: number },
  unit = '',
  unseen = 'not seen',
): boolean {
  const most = 'atMost' in limit;
  const bound = most ? limit.atMost : limit.atLeast;
  const met = measured !== null && (most ? measured <= bound : measured >= bound);
  const digits = (n: number) => (Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
  const withUnit = (n: string) => `${n}${unit ? ` ${unit}` : ''}`;
  const file = process.env.BENCH_FIGURES;
  if (file) {
    const line: Figure = {
      figure,
      target: `${most ? '<=' : '>='} ${withUnit(bound.toLocaleString('en-US'))}`,
      measured: measured === null ? unseen : withUnit(fmt(measured, digits(measured))),
      met,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
  return met;
}

/** The report's table, in markdown: one row per figure, in the order recorded. */
export function figureTable(rows: (Figure & { bench: string })[]): string {
  const cells = rows.map((r) => [
    r.bench,
    r.figure,
    r.target,
    r.measured,
    r.met ? 'met' : '**not met**',
  ]);
  const head = ['bench', 'figure', 'target', 'measured', 'met'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
