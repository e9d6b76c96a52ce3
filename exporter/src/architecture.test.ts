// The exporter's shape, as a test: its modules import each other without a cycle (type imports
// included), and nothing outside its tests depends on the reference pipeline.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s+'([^']+)'/gm;

const isTest = (f: string) => f.endsWith('.test.ts') || f.split('/').includes('testing');

function sources(): string[] {
  return readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !isTest(relative(SRC, f)));
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1]!);
}

test('no import cycles among the exporter modules', () => {
  const graph = new Map<string, string[]>();
  for (const file of sources())
    graph.set(
      file,
      importsOf(file)
        .filter((s) => s.startsWith('.'))
        .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts'))),
    );
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      const loop = path.slice(path.indexOf(file)).concat(file);
      cycles.push(loop.map((f) => relative(SRC, f)).join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

test("the exporter depends on no example pipeline's code", () => {
  for (const file of sources())
    for (const spec of importsOf(file))
      assert.doesNotMatch(spec, /orders-example|examples\//, relative(SRC, file));
});
