// The registry holds every SDK to its folder: each profile the conventions name is registered
// once, has its shape (what its spans look like, from its source) and its journey tests beside it,
// and its spans are claimed by itself and no other profile.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { SDK_PROFILES } from '@acktrail/conventions';
import { profileOf } from './read.js';
import { MODULES, UNKNOWN } from './registry.js';
import { SHAPE_LIST, WITHOUT_SHAPE, shapeFile } from './testing/shapes.js';
import { received, shapeSpans, type Settle } from './testing/shape.js';
import { MESSAGE } from './testing/journey.js';

const ids = MODULES.map((m) => m.profile.id);
const testFile = (id: string) => fileURLToPath(new URL(`${id}/${id}.test.ts`, import.meta.url));

test('every profile the conventions name is registered once, the conventions alone last', () => {
  assert.deepEqual([...ids].sort(), [...SDK_PROFILES].sort());
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(MODULES.at(-1), UNKNOWN);
});

test('every profile has its shape and its journey tests beside it, or says why not', () => {
  const missing = ids.flatMap((id) => {
    if (WITHOUT_SHAPE[id] !== undefined)
      return existsSync(shapeFile(id)) ? [`${id}: has a shape but is listed without one`] : [];
    const shapes = SHAPE_LIST.filter((s) => s.profile === id);
    const test = testFile(id);
    return [
      ...(shapes.length === 0 ? [`${id}: no shape in ${id}/${id}.shape.ts`] : []),
      ...(!existsSync(test)
        ? [`${id}: no ${id}/${id}.test.ts`]
        : !readFileSync(test, 'utf8').includes("from '../testing/journey.js'")
          ? [`${id}: ${id}/${id}.test.ts runs no journey of its shapes (testing/journey.ts)`]
          : []),
    ];
  });
  assert.deepEqual(missing, []);
});

test("a shape's name is unique and its shape file names its profile", () => {
  const names = SHAPE_LIST.map((s) => s.name);
  assert.equal(new Set(names).size, names.length, names.join(', '));
  for (const s of SHAPE_LIST)
    assert.ok(
      readFileSync(shapeFile(s.profile), 'utf8').includes(`name: '${s.name}'`),
      `${s.name} is not in ${s.profile}/${s.profile}.shape.ts`,
    );
});

test("every span a shape writes is claimed by the shape's own profile", () => {
  const settles: Settle[] = [
    { op: 'ack' },
    { op: 'nack', requeue: true },
    { op: 'reject', requeue: false },
    { op: 'none' },
  ];
  const strays = SHAPE_LIST.flatMap((shape) =>
    shapeSpans(shape, MESSAGE, settles, 0)
      .map((d) => received(d))
      .filter((span) => profileOf(span).id !== shape.profile)
      .map((span) => `${shape.name}: "${span.name}" read as ${profileOf(span).id}`),
  );
  assert.deepEqual(strays, []);
});
