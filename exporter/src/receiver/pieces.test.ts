import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteBudget } from './budget.js';
import { MAX_PIECES, PIECE_COST, Pieces } from './pieces.js';

test('one-byte pieces are held in a few growing segments, charged for their capacity', () => {
  const budget = new ByteBudget(64 * 1024 * 1024);
  const pieces = new Pieces(budget);
  const body = Buffer.from(Array.from({ length: 50_000 }, (_, i) => i % 251));
  for (let i = 0; i < body.length; i++) assert.equal(pieces.add(body.subarray(i, i + 1)), null);
  const held = pieces.buffers();
  assert.ok(held.length <= 12, `${held.length} buffers held for 50,000 pieces`);
  assert.deepEqual(Buffer.concat(held), body);
  assert.equal(budget.inUse, pieces.charged);
  // At least what is held, at most twice it (segments double) and a floor per buffer.
  assert.ok(pieces.charged >= body.length + held.length * PIECE_COST);
  assert.ok(pieces.charged <= 2 * body.length + 1024 + held.length * PIECE_COST);
  pieces.release();
  assert.equal(budget.inUse, 0);
});

test('large pieces are kept as they came; small ones between them stay in order', () => {
  const budget = new ByteBudget(64 * 1024 * 1024);
  const pieces = new Pieces(budget);
  const big = Buffer.alloc(64 * 1024, 1);
  pieces.add(Buffer.from('ab'));
  pieces.add(big);
  pieces.add(Buffer.from('c'));
  const held = pieces.buffers();
  assert.equal(held[1], big, 'the large piece itself, not a copy');
  assert.equal(Buffer.concat(held).toString('latin1', 0, 2), 'ab');
  assert.equal(Buffer.concat(held).length, 64 * 1024 + 3);
  assert.equal(pieces.head(3).toString('latin1'), 'ab\u0001');
});

test('small pieces between large ones are charged about their size, not a growing segment', () => {
  const budget = new ByteBudget(64 * 1024 * 1024);
  const pieces = new Pieces(budget);
  const large = Buffer.alloc(64 * 1024);
  const small = Buffer.alloc(12_000);
  for (let i = 0; i < 64; i++) {
    pieces.add(i % 2 ? small : large);
  }
  const bytes = 32 * (large.length + small.length);
  assert.equal(pieces.size, bytes);
  assert.ok(pieces.charged <= bytes + 64 * PIECE_COST, `${pieces.charged} charged for ${bytes}`);
});

test('a declared length bounds the segment: a small body is charged about its size', () => {
  const budget = new ByteBudget(64 * 1024 * 1024);
  const pieces = new Pieces(budget, 100);
  for (let i = 0; i < 100; i++) pieces.add(Buffer.from('x'));
  assert.equal(pieces.charged, 100 + PIECE_COST);
  assert.equal(pieces.buffers().length, 1);
});

test('the budget is charged before a piece is held: a refused piece holds nothing', () => {
  const budget = new ByteBudget(4096);
  const pieces = new Pieces(budget);
  let n = 0;
  let refused = pieces.add(Buffer.from('y'));
  for (; refused === null; refused = pieces.add(Buffer.from('y'))) n++;
  assert.equal(refused, 'budget');
  assert.equal(pieces.size, n);
  assert.ok(budget.inUse <= 4096);
  assert.equal(Buffer.concat(pieces.buffers()).length, n);
});

test(`a body comes in at most ${MAX_PIECES} pieces`, () => {
  const pieces = new Pieces(new ByteBudget(64 * 1024 * 1024));
  for (let i = 0; i < MAX_PIECES; i++) assert.equal(pieces.add(Buffer.from('z')), null);
  assert.equal(pieces.add(Buffer.from('z')), 'pieces');
  assert.equal(pieces.size, MAX_PIECES);
});

test('over the memory budget nothing is taken and every body being read is stopped, once', () => {
  const budget = new ByteBudget(1024 * 1024);
  const stopped: string[] = [];
  const a = budget.reading(() => stopped.push('a'));
  budget.reading(() => stopped.push('b'));
  a(); // a's body ended
  assert.equal(budget.tryTake(10), true);
  budget.setOverMemory(true);
  assert.deepEqual(stopped, ['b']);
  assert.equal(budget.tryTake(10), false);
  assert.equal(budget.refusal, 'over_memory');
  assert.match(budget.describe(budget.refusal), /memory budget/);
  budget.setOverMemory(false);
  assert.equal(budget.tryTake(10), true);
  assert.equal(budget.refusal, 'over_budget');
});
