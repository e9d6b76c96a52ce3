// docs/metrics.md's generated tables: each section's metrics (between `<!-- metrics:<section> -->`
// and `<!-- /metrics -->`) and the labels' bounds (`<!-- metrics:labels -->`), written from the
// catalogue by npm run generate (scripts/generate.ts), aligned as prettier aligns a table.
import { CATALOGUE } from './catalogue.js';
import { LABEL_BOUNDS } from './label-bounds.js';
import type { MetricSpec, SectionId } from './spec.js';

/** A markdown table with its columns padded to their widest cell, as prettier writes one. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]) {
  const width = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(width[i]!)).join(' | ')} |`;
  return [line(header), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const row = (m: MetricSpec) => [`\`${m.name}\``, m.type, m.labels.join(', '), m.doc];

/** One section's table of metrics. */
export const sectionTable = (id: SectionId): string =>
  markdownTable(['metric', 'type', 'labels', 'meaning'], CATALOGUE[id].map(row));

/** The table of every label and what bounds its values. */
export const labelsTable = (): string =>
  markdownTable(
    ['label', 'bounded by'],
    Object.entries(LABEL_BOUNDS)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([label, bound]) => [`\`${label}\``, bound]),
  );

const BLOCK = /(<!-- metrics:([a-z-]+) -->\n)[\s\S]*?(\n<!-- \/metrics -->)/g;

/** The docs' text with every generated block written again; an unknown block's name throws. */
export function withTables(text: string): string {
  return text.replace(BLOCK, (_all, open: string, id: string, close: string) => {
    if (id === 'labels') return `${open}\n${labelsTable()}\n${close}`;
    if (!(id in CATALOGUE)) throw new Error(`docs/metrics.md: no catalogue section "${id}"`);
    return `${open}\n${sectionTable(id as SectionId)}\n${close}`;
  });
}
