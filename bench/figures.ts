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
export function figureTable(rows: (Figure & { bench: string })[], withBench = true): string {
  const cells = rows.map((r) => [
    ...(withBench ? [r.bench] : []),
    r.figure,
    r.target,
    r.measured,
    r.met ? 'met' : '**not met**',
  ]);
  const head = [...(withBench ? ['bench'] : []), 'figure', 'target', 'measured', 'met'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** Where `npm run bench -- report` writes in docs/benchmarks.md: between these two lines. */
export const REPORT_START =
  '<!-- report: written by `npm run bench -- report` (bench/report.ts); do not edit -->';
export const REPORT_END = '<!-- /report -->';

/**
 * The current figures as docs/benchmarks.md keeps them: what ran where (`run`: the date, the
 * commit, the machine, the times), then one table per bench, in the order the benches ran.
 */
export function reportSection(rows: (Figure & { bench: string })[], run: string): string {
  const benches = [...new Set(rows.map((r) => r.bench))];
  const met = rows.filter((r) => r.met).length;
  return [
    REPORT_START,
    '',
    run,
    '',
    `${met} of ${rows.length} figures meet their targets.`,
    ...benches.flatMap((b) => [
      '',
      `### ${b}`,
      '',
      figureTable(
        rows.filter((r) => r.bench === b),
        false,
      ),
    ]),
    '',
    REPORT_END,
  ].join('\n');
}

/** `doc` with the text between the report's markers replaced by `section` (its own markers). */
export function replaceReport(doc: string, section: string): string {
  const start = doc.indexOf(REPORT_START);
  const end = doc.indexOf(REPORT_END);
  if (start < 0 || end < start)
    throw new Error(`docs/benchmarks.md has no report markers (${REPORT_START} ... ${REPORT_END})`);
  return doc.slice(0, start) + section + doc.slice(end + REPORT_END.length);
}
