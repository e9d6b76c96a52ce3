// The exporter's shape, as a test: its modules import each other without a cycle (type imports
// included), nor do its top-level folders (the data flow reads one way: server -> api ->
// receiver -> collectors, celery, deadletters -> journeys -> broker) or their folders two levels
// deep (journeys/service.ts -> journeys/assemble/, journeys/store/ -> journeys/model/), the
// journey model depends on nothing but the conventions, the instrumentation profiles' face and the
// broker's queue types, the profiles on nothing but the conventions (an SDK's folder on nothing
// but its kit), the journey
// store is reached through journeys/store/index.ts only, only
// journeys/store/ writes SQL on the journey store's tables, nothing outside its tests depends
// on the reference pipeline, the broker topology is built in broker/ only and never changed,
// api/ reads journeys through the one read path (nothing from celery/ or pipeline/), and the
// receiver hands its batches to the one write path (journeys/writer.ts), importing no journey
// model, store, metrics or broker.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'pg';
import type { JourneyStore, ReplicaReads, StepReads, StepStore } from './journeys/store/index.js';

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s+'([^']+)'/gm;

/** Tests and their fixtures: test files, `testing/` folders and each SDK's shape (<id>.shape.ts). */
const isTest = (f: string) =>
  f.endsWith('.test.ts') || f.endsWith('.shape.ts') || f.split('/').includes('testing');

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

const localImports = (file: string) =>
  importsOf(file)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));

/** The cycles of a graph, each as the path that closes it. */
function cyclesOf(graph: Map<string, string[]>, name: (node: string) => string): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') {
      const loop = path.slice(path.indexOf(node)).concat(node);
      cycles.push(loop.map(name).join(' -> '));
      return;
    }
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

test('no import cycles among the exporter modules', () => {
  const graph = new Map(sources().map((file) => [file, localImports(file)]));
  assert.deepEqual(
    cyclesOf(graph, (f) => relative(SRC, f)),
    [],
  );
});

/** A file's top-level folder (`journeys/`), or the file itself at the top (`server.ts`). */
const unitOf = (file: string) => {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? parts[0]! : `${parts[0]}/`;
};

/** The import graph of the units `unit` groups the files into (folders, files at the top). */
function unitGraph(unit: (file: string) => string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources()) {
    const from = unit(file);
    const to = localImports(file)
      .map(unit)
      .filter((u) => u !== from);
    graph.set(from, [...new Set([...(graph.get(from) ?? []), ...to])]);
  }
  return graph;
}

test('no import cycles among the top-level folders', () => {
  assert.deepEqual(
    cyclesOf(unitGraph(unitOf), (u) => u),
    [],
  );
});

/**
 * A file's folder two levels deep (`journeys/model/`), or its top-level folder for a file directly
 * in one (`journeys/` for journeys/metrics.ts), or the file itself at the top.
 */
const subunitOf = (file: string) => {
  const parts = relative(SRC, file).split('/');
  if (parts.length === 1) return parts[0]!;
  return parts.length === 2 ? `${parts[0]}/` : `${parts[0]}/${parts[1]}/`;
};

test('no import cycles among the folders, two levels deep', () => {
  assert.deepEqual(
    cyclesOf(unitGraph(subunitOf), (u) => u),
    [],
  );
});

test("the journey model imports only the conventions, itself, the profiles' face and the broker's queue types", () => {
  const allowed = (spec: string, line: string) =>
    spec === '@acktrail/conventions' ||
    spec.startsWith('./') ||
    spec === '../profiles/index.js' ||
    (spec === '../../broker/topology.js' && /^\s*import type\b/.test(line));
  const outside = sources()
    .filter((f) => relative(SRC, f).startsWith('journeys/model/'))
    .flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(IMPORT)]
        .filter((m) => !allowed(m[1]!, m[0]))
        .map((m) => `${relative(SRC, f)}: ${m[1]!}`),
    );
  assert.deepEqual(outside, []);
});

test('outside journeys/store/, the store is reached through its index only', () => {
  const STORE = join(SRC, 'journeys/store/');
  const past = sources()
    .filter((f) => !f.startsWith(STORE))
    .flatMap((f) =>
      localImports(f)
        .filter((to) => to.startsWith(STORE) && to !== join(STORE, 'index.ts'))
        .map((to) => `${relative(SRC, f)} -> ${relative(SRC, to)}`),
    );
  assert.deepEqual(past, []);
});

test('only journeys/store/ runs SQL on the journey tables', () => {
  const TABLES = /\b(?:FROM|JOIN|INTO|UPDATE)\s+journey_(?:steps|events)\b/i;
  const outside = sources().filter(
    (f) => !relative(SRC, f).startsWith('journeys/store/') && TABLES.test(readFileSync(f, 'utf8')),
  );
  assert.deepEqual(
    outside.map((f) => relative(SRC, f)),
    [],
  );
});

test("the exporter depends on no example pipeline's code", () => {
  for (const file of sources())
    for (const spec of importsOf(file))
      assert.doesNotMatch(spec, /orders-example|examples\//, relative(SRC, file));
});

test('only db/checkout.ts checks a connection out of a pg pool', () => {
  // A pooled connection checked out anywhere else has no `error` listener while it is out: the
  // server ending it (a restart, a failover) would end the process. `.connect()` is otherwise a
  // client's own (node-postgres' Client, ioredis): allowed in a file that makes it and no pool.
  const outside = sources()
    .filter((f) => relative(SRC, f) !== 'db/checkout.ts')
    .filter((f) => {
      const text = readFileSync(f, 'utf8');
      if (!/\.connect\(\)/.test(text)) return false;
      const ownClient = /new (?:pg\.Client|Redis)\(/.test(text);
      return !ownClient || /\bPool\b|\bpools?\b/.test(text);
    });
  assert.deepEqual(
    outside.map((f) => relative(SRC, f)),
    [],
  );
});

test('every pg client the exporter makes listens for its error', () => {
  const silent = sources().filter((f) => {
    const text = readFileSync(f, 'utf8');
    const made = text.match(/new (?:pg\.Client|pg\.Pool|SessionPool)\(/g)?.length ?? 0;
    const heard = text.match(/\.on\('error'/g)?.length ?? 0;
    return made > heard;
  });
  assert.deepEqual(
    silent.map((f) => relative(SRC, f)),
    [],
  );
});

test('the broker topology is built in broker/ only, and a snapshot has nothing to change', () => {
  const builders = sources()
    .filter((f) => !relative(SRC, f).startsWith('broker/'))
    .filter((f) => /\bbuildTopology\b|\bnew Topology\(/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(SRC, f));
  assert.deepEqual(builders, []);
  const text = readFileSync(join(SRC, 'broker/topology.ts'), 'utf8');
  const body = text.slice(text.indexOf('export class Topology'));
  const mutable = body
    .slice(0, body.indexOf('\n}\n'))
    .split('\n')
    .filter((l) =>
      /^ {2}(private |protected |public )?(?!readonly |static |get )\w+\??(: | = )/.test(l),
    );
  assert.deepEqual(mutable, [], 'every field of a snapshot is readonly');
  assert.doesNotMatch(body, /^\s+set \w+\(|this\.\w+(\.\w+)* = /m, 'nothing assigns to it');
});

test('api/ reads journeys through the one read path: nothing from celery/ or pipeline/', () => {
  const reached = sources()
    .filter((f) => relative(SRC, f).startsWith('api/'))
    .flatMap((f) =>
      localImports(f)
        .map((to) => relative(SRC, to))
        .filter((to) => to.startsWith('celery/') || to.startsWith('pipeline/'))
        .map((to) => `${relative(SRC, f)} -> ${to}`),
    );
  assert.deepEqual(reached, []);
});

test('the receiver only receives: span reading is reached through journeys/spans/index.ts', () => {
  const SPANS = join(SRC, 'journeys/spans/');
  const past = sources()
    .filter((f) => relative(SRC, f).startsWith('receiver/'))
    .flatMap((f) =>
      localImports(f)
        .filter((to) => to.startsWith(SPANS) && to !== join(SPANS, 'index.ts'))
        .map((to) => `${relative(SRC, f)} -> ${relative(SRC, to)}`),
    );
  assert.deepEqual(past, []);
  const left = readdirSync(join(SRC, 'receiver'), { recursive: true })
    .map(String)
    .filter((f) =>
      /^(decode|convert|normalize|message-keys|where|coverage-tally|otlp-schema)\.ts$|^profiles/.test(
        f,
      ),
    );
  assert.deepEqual(left, [], 'span reading lives in journeys/spans/');
});

// The profiles are the house's floor beside the conventions: what an SDK writes is read with
// nothing of the journeys', and an SDK's folder holds its own reading only, built from the kit
// beside it (profile.ts, semconv.ts, span.ts), never from another SDK's.
test('the profiles import only the conventions and themselves; an SDK folder only its own and the kit', () => {
  const PROFILES = join(SRC, 'journeys/profiles/');
  const KIT = ['profile.ts', 'semconv.ts', 'span.ts'].map((f) => join(PROFILES, f));
  const outside = sources()
    .filter((f) => f.startsWith(PROFILES))
    .flatMap((f) => {
      const sdk = relative(PROFILES, f).split('/').length > 1 ? dirname(f) + '/' : null;
      const external = [...readFileSync(f, 'utf8').matchAll(IMPORT)]
        .map((m) => m[1]!)
        .filter((spec) => !spec.startsWith('.') && spec !== '@acktrail/conventions');
      const local = localImports(f).filter((to) =>
        sdk === null ? !to.startsWith(PROFILES) : !to.startsWith(sdk) && !KIT.includes(to),
      );
      return [...external, ...local.map((to) => relative(SRC, to))].map(
        (to) => `${relative(SRC, f)} -> ${to}`,
      );
    });
  assert.deepEqual(outside, []);
});

// The receiver keeps admission, transports and threads; what a batch becomes is the journey
// writer's (journeys/writer.ts), as a Collector receiver hands its batch to the next consumer.
test('the receiver hands batches to the journey writer: no journey model, store, metrics or broker in receiver/', () => {
  const FORBIDDEN = [
    'journeys/model/',
    'journeys/profiles/',
    'journeys/store/',
    'journeys/metrics.ts',
    'broker/',
  ];
  const reached = sources()
    .filter((f) => relative(SRC, f).startsWith('receiver/'))
    .flatMap((f) =>
      localImports(f)
        .map((to) => relative(SRC, to))
        .filter((to) => FORBIDDEN.some((no) => to.startsWith(no)))
        .map((to) => `${relative(SRC, f)} -> ${to}`),
    );
  assert.deepEqual(reached, []);
  // Only the writer writes steps: nothing else calls the store's write.
  const writers = sources()
    .filter((f) => !relative(SRC, f).startsWith('journeys/'))
    .filter((f) => /\.steps\.write\(/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(SRC, f));
  assert.deepEqual(writers, []);
});

// No pool of pg's leaves journeys/store/: what its door exports has no public member that is one (the
// other tables' users get `database`: statements and checkouts only). The types check it: a
// public pool member makes `npm run typecheck` (which CI runs) fail on this line.
type PoolMembers<T> = { [K in keyof T]-?: T[K] extends Pool ? K : never }[keyof T];
type NoPool<T> = [PoolMembers<T>] extends [never] ? true : false;
export const doorHasNoPool: [
  NoPool<JourneyStore>,
  NoPool<JourneyStore['database']>,
  NoPool<StepStore>,
  NoPool<StepReads>,
  NoPool<ReplicaReads>,
] = [true, true, true, true, true];
