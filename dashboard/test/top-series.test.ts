// Per-queue charts with many queues: the top N by latest value, the rest summed into "others".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTop, topSeries } from '../lib/charts/overview.js';

const s = (name: string, ...values: number[]) => ({
  name,
  points: values.map((v, i) => [i * 15, v] as [number, number]),
});

test('the largest by latest value stay, the rest are summed point by point', () => {
  const out = topSeries([s('a', 9, 1), s('b', 0, 5), s('c', 4, 4), s('d', 2, 2), s('e', 1, 1)], 2);
  assert.deepEqual(
    out.map((x) => x.name),
    ['b', 'c', 'others (3)'],
  );
  assert.deepEqual(out[2]!.points, [
    [0, 12],
    [15, 4],
  ]);
});

test('n + 1 series or fewer are drawn as they are; ties go by name', () => {
  const three = [s('b', 1), s('a', 1), s('c', 1)];
  assert.equal(topSeries(three, 2), three);
  assert.deepEqual(
    topSeries([s('b', 1), s('a', 1), s('c', 1), s('d', 1)], 2).map((x) => x.name),
    ['a', 'b', 'others (2)'],
  );
});

test('?top= takes one of the offered numbers, else 10', () => {
  assert.equal(parseTop('20'), 20);
  assert.equal(parseTop(['5', '50']), 5);
  assert.equal(parseTop('7'), 10);
  assert.equal(parseTop(undefined), 10);
  assert.equal(parseTop('1e9'), 10);
});
