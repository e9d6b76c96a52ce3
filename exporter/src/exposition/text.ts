// Reading the Prometheus text format: the samples of the wanted families, with their labels, in
// one pass and without building what is not asked for. The broker's detailed endpoint (50,000
// lines at 10,000 queues, through SeriesReader) and the OpenMetrics exposition (openmetrics.ts)
// read through it.
//
// A focused parser rather than a general one: parse-prometheus-text-format took 208 ms for the
// broker's 30,000 lines where this takes under 10 ms (measured; docs/benchmarks-history.md). It handles
// any label order and the format's escapes, and skips everything else.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const UNESCAPE: Record<string, string> = { n: '\n', '\\': '\\', '"': '"' };

/** Parses `{a="x",b="y"}` starting at `start` (the `{`); returns the labels and the index after `}`. */
export function parseLabels(line: string, start: number): [Record<string, string>, number] | null {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return [labels, i + 1];
    const eq = line.indexOf('=', i);
    if (eq < 0 || line[eq + 1] !== '"') return null;
    const name = line.slice(i, eq).trim();
    i = eq + 2;
    // Most values have no escape: one slice up to the closing quote (a view of the text: what
    // is kept takes an ownCopy).
    const close = line.indexOf('"', i);
    const escape = line.indexOf('\\', i);
    let value = '';
    if (close >= 0 && (escape < 0 || escape > close)) {
      value = line.slice(i, close);
      i = close;
    } else
      for (;;) {
        const ch = line[i];
        if (ch === undefined) return null;
        if (ch === '"') break;
        if (ch === '\\') {
          const next = line[i + 1] ?? '';
          value += UNESCAPE[next] ?? `\\${next}`;
          i += 2;
        } else {
          value += ch;
          i++;
        }
      }
    labels[name] = value;
    i++;
  }
}

/**
 * A copy of `s` that does not keep alive the text it was cut from: V8 makes a slice of 13 or more
 * characters a view of its parent (here a whole answer of megabytes), so a name kept from one
 * answer to the next is copied once.
 */
export const ownCopy = (s: string): string => Buffer.from(s).toString();

/** Samples of the wanted metric names (null: all) from text exposition; other lines are skipped. */
export function parseSamples(text: string, wanted: ReadonlySet<string> | null): Sample[] {
  const samples: Sample[] = [];
  forEachSample(text, wanted, (name, labels, value) => samples.push({ name, labels, value }));
  return samples;
}

/** Calls `onLine` for each non-empty line of `text`, without splitting it into an array. */
export function forEachLine(text: string, onLine: (line: string) => void): void {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) onLine(text.slice(start, end));
    start = end + 1;
  }
}

/** Where a sample line's metric name ends: at its `{`, or at the space before its value. */
export function nameEnd(line: string): number {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  return brace >= 0 && (space < 0 || brace < space) ? brace : space;
}

/** A sample's value; NaN for anything else than a number (a property name too: no lookup). */
const number = (raw: string) =>
  raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);

/** A sample line's labels and value, its name ending at `end`; null when it cannot be read. */
function readSample(
  line: string,
  end: number,
): { labels: Record<string, string>; value: number } | null {
  let labels: Record<string, string> = {};
  let rest = end;
  if (line[end] === '{') {
    const parsed = parseLabels(line, end);
    if (!parsed) return null;
    [labels, rest] = parsed;
  }
  const value = number(line.slice(rest).trim().split(' ')[0] ?? '');
  return Number.isNaN(value) ? null : { labels, value };
}

/** Calls `onSample` for each sample of the wanted names, without building a list. */
export function forEachSample(
  text: string,
  wanted: ReadonlySet<string> | null,
  onSample: (name: string, labels: Record<string, string>, value: number) => void,
): void {
  forEachLine(text, (line) => {
    if (line.startsWith('#')) return;
    const end = nameEnd(line);
    if (end <= 0) return;
    const name = line.slice(0, end);
    if (wanted && !wanted.has(name)) return;
    const sample = readSample(line, end);
    if (sample) onSample(name, sample.labels, sample.value);
  });
}

/** A series as its reader made it, with the label block it was made from (an own copy). */
interface Made<T> {
  block: string;
  series: T;
}

const OPEN = 123; // {
const CLOSE = 125; // }

/**
 * The samples of one source whose series repeat from one answer to the next (a broker node's
 * per-queue families: 50,000 lines at 10,000 queues). A series' labels are parsed, and made into
 * what the caller keeps (`make`; null: not wanted), the first time its label block is seen; a
 * later line or answer with the same block finds it by the block's text, without reading the
 * labels or building a key again. What is kept: the series of the last answer. `make` gets
 * label values that are views of the text, and copies (ownCopy) what it keeps.
 */
export class SeriesReader<T> {
  private last = new Map<string, Made<T>>();

  constructor(private readonly make: (labels: Record<string, string>) => T | null) {}

  forEach(
    text: string,
    wanted: ReadonlySet<string>,
    onSample: (name: string, series: T, value: number) => void,
  ): void {
    const seen = new Map<string, Made<T>>();
    const last = this.last;
    // The lines of a family come together: the last wanted name is tried first.
    let family = '';
    forEachLine(text, (line) => {
      let name = family;
      let end = family.length;
      const after = line.charCodeAt(end);
      if (!(end > 0 && (after === OPEN || after === 32) && line.startsWith(family))) {
        if (line.charCodeAt(0) === 35) return; // #
        end = nameEnd(line);
        if (end <= 0) return;
        name = line.slice(0, end);
        if (!wanted.has(name)) return;
        family = name;
      }
      // `name{…} value`: the block is what lies between the name and the last space.
      const space = line.lastIndexOf(' ');
      if (line.charCodeAt(end) === OPEN && line.charCodeAt(space - 1) === CLOSE) {
        const block = line.slice(end, space);
        let made = seen.get(block);
        if (!made) {
          made = last.get(block) ?? this.read(line, end, space);
          if (!made) return;
          seen.set(made.block, made);
        }
        const value = number(line.slice(space + 1));
        if (!Number.isNaN(value)) onSample(name, made.series, value);
        return;
      }
      // A timestamp after the value, or no labels: read the long way, nothing kept.
      const sample = readSample(line, end);
      const series = sample && this.make(sample.labels);
      if (series) onSample(name, series, sample.value);
    });
    this.last = seen;
  }

  private read(line: string, end: number, space: number): Made<T> | undefined {
    const parsed = parseLabels(line, end);
    // The block must be the labels and nothing else, or its text would not name the series.
    if (!parsed || parsed[1] !== space) return undefined;
    const series = this.make(parsed[0]);
    return series === null ? undefined : { block: ownCopy(line.slice(end, space)), series };
  }
}
