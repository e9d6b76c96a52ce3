// /metrics in two formats, chosen by the scraper's Accept header (Prometheus' content
// negotiation): the Prometheus text format (0.0.4) by default, OpenMetrics 1.0.0 when asked for,
// the only one with exemplars. prom-client writes one format per registry and cannot switch (its
// OpenMetrics mode renames counters for good), so the OpenMetrics exposition of the registry is
// made from the text one, which every registry writes: the differences are few and fixed by the
// specification. The families with a series per queue are written in both formats directly
// (families.ts) and only appended.
//   - a counter family is named without `_total` in HELP and TYPE (its samples keep it);
//   - `untyped` is `unknown`; NaN is written `NaN`; no empty lines; `"` in HELP is escaped;
//   - a sample line may end with ` # {labels} value timestamp`: its exemplar;
//   - the exposition ends with `# EOF`.
import type { Exemplar, Exemplars } from './exemplars.js';
import { labelKey } from './exemplars.js';
import { forEachLine, nameEnd, parseLabels } from './text.js';

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_CONTENT_TYPE =
  'application/openmetrics-text; version=1.0.0; charset=utf-8';

const escapeValue = (v: string) =>
  v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function exemplarSuffix(e: Exemplar): string {
  const labels = Object.entries(e.labels)
    .map(([k, v]) => `${k}="${escapeValue(v)}"`)
    .join(',');
  return ` # {${labels}} ${e.value} ${(e.timestampMs / 1000).toFixed(3)}`;
}

/** `# HELP name text`: the family renamed, `"` escaped (OpenMetrics' escaped-string). */
function helpLine(name: string, text: string): string {
  return `# HELP ${name} ${text.replace(/(?<!\\)"/g, '\\"')}`;
}

/** What ends an OpenMetrics exposition. */
export const OPENMETRICS_EOF = '# EOF\n';

/** The OpenMetrics exposition of a Prometheus text exposition, with exemplars added. */
export function toOpenMetrics(text: string, exemplars: Exemplars): string {
  return openMetricsFamilies(text, exemplars) + OPENMETRICS_EOF;
}

/**
 * The families of a text exposition in OpenMetrics, without the closing `# EOF`: more families
 * (families.ts) may follow.
 */
export function openMetricsFamilies(text: string, exemplars: Exemplars): string {
  const withExemplars = exemplars.names();
  const out: string[] = [];
  let pendingHelp: { name: string; text: string } | null = null;
  forEachLine(text, (line) => {
    if (line.startsWith('# HELP ')) {
      const space = line.indexOf(' ', 7);
      const name = space < 0 ? line.slice(7) : line.slice(7, space);
      pendingHelp = { name, text: space < 0 ? '' : line.slice(space + 1) };
    } else if (line.startsWith('# TYPE ')) {
      const [, , name = '', type = 'untyped'] = line.split(' ');
      const family = type === 'counter' ? name.replace(/_total$/, '') : name;
      if (pendingHelp?.name === name) out.push(helpLine(family, pendingHelp.text));
      pendingHelp = null;
      out.push(`# TYPE ${family} ${type === 'untyped' ? 'unknown' : type}`);
    } else if (!line.startsWith('#')) {
      out.push(withExemplar(line, withExemplars, exemplars));
    }
  });
  return out.length ? `${out.join('\n')}\n` : '';
}

function withExemplar(line: string, names: ReadonlySet<string>, exemplars: Exemplars): string {
  const end = nameEnd(line);
  const name = line.slice(0, end);
  let sample = line.endsWith(' Nan') ? `${line.slice(0, -3)}NaN` : line;
  if (!names.has(name)) return sample;
  let labels: Record<string, string> = {};
  if (line[end] === '{') {
    const parsed = parseLabels(line, end);
    if (!parsed) return sample;
    labels = parsed[0];
  }
  const e = exemplars.get(name, labelKey(labels));
  if (e) sample += exemplarSuffix(e);
  return sample;
}
