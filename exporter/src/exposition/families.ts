// Metric families with one series per queue (tens of thousands of lines at 10,000 queues),
// written straight to exposition bytes. prom-client keeps an object per series and serialises
// every series again on each scrape, and the OpenMetrics exposition would be a second pass over
// its text (openmetrics.ts); these families change only with the broker's answer, so they are
// written once per answer, when first asked for, and served from the cache until the next (and
// gzipped once: encoding.ts). The rest of the registry stays prom-client.
//
// The two formats differ only in a family's HELP and TYPE lines (OpenMetrics names a counter
// without `_total` and escapes `"` in HELP); the sample lines are the same bytes in both, so they
// are written and kept once. Values are written as prom-client writes them, except NaN, written
// `NaN` (both formats' spelling; prom-client writes `Nan`).
import { Piece } from './encoding.js';

export type ExpositionFormat = 'text' | 'openmetrics';

export interface FamilySpec {
  /** As prom-client names it: a counter's name ends with `_total`. */
  name: string;
  help: string;
  type: 'gauge' | 'counter';
}

/** One series: its label set as written by `labelsText`, and its value. */
export type SeriesLine = readonly [labels: string, value: number];

const escapeLabel = (v: string) =>
  v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** `{a="x",b="y"}`, in the order given; '' without labels. */
export function labelsText(labels: Readonly<Record<string, string>>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function valueText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** HELP and TYPE of a family in a format. */
export function familyHeader(spec: FamilySpec, format: ExpositionFormat): string {
  let help = spec.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  let name = spec.name;
  if (format === 'openmetrics') {
    help = help.replace(/"/g, '\\"');
    if (spec.type === 'counter') name = name.replace(/_total$/, '');
  }
  return `# HELP ${name} ${help}\n# TYPE ${name} ${spec.type}\n`;
}

/** A family's sample lines, the same in both formats. */
export function familySamples(spec: FamilySpec, series: Iterable<SeriesLine>): string {
  const lines: string[] = [];
  for (const [labels, value] of series) lines.push(`${spec.name}${labels} ${valueText(value)}\n`);
  return lines.join('');
}

/** A family and what gives its series when it is written. */
export type FamilySource = readonly [FamilySpec, () => Iterable<SeriesLine>];

/**
 * Families written at most once between two `invalidate` calls (one per broker answer) and kept
 * as bytes, their samples shared by both formats. A family without series still says HELP and
 * TYPE, as prom-client writes it.
 */
export class CachedFamilies {
  private readonly headers: Record<ExpositionFormat, Piece[]>;
  private samples: Piece[] | null = null;

  constructor(private readonly families: readonly FamilySource[]) {
    const headers = (format: ExpositionFormat) =>
      families.map(([spec]) => Piece.of(familyHeader(spec, format)));
    this.headers = { text: headers('text'), openmetrics: headers('openmetrics') };
  }

  invalidate(): void {
    this.samples = null;
  }

  pieces(format: ExpositionFormat): Piece[] {
    this.samples ??= this.families.map(([spec, series]) =>
      Piece.cached(familySamples(spec, series())),
    );
    const samples = this.samples;
    return this.headers[format].flatMap((header, i) => [header, samples[i]!]);
  }
}
