import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate, StatusWindows, WINDOW, type Observation } from './status.js';

/** A window of observations 60 s apart from [ready, consumers, acked] triples. */
const window = (...points: [number, number, number][]): Observation[] =>
  points.map(([ready, consumers, acked], i) => ({ atMs: i * 60_000, ready, consumers, acked }));

test('STOP: no consumer while messages wait, whatever came before', () => {
  const e = evaluate(window([0, 2, 10], [5, 2, 12], [9, 0, 12]));
  assert.equal(e.status, 'stop');
  assert.equal(e.rule, 'no consumer while 9 messages wait');
  assert.equal(evaluate(window([1, 0, 0])).rule, 'no consumer while 1 message waits');
});

test('OK: an empty queue without consumers is idle, not stopped', () => {
  assert.equal(evaluate(window([0, 0, 0], [0, 0, 0])).status, 'ok');
});

test('OK: empty at some point of the window, however slow the rest', () => {
  const e = evaluate(window([4, 1, 10], [0, 1, 14], [6, 1, 14], [9, 1, 14]));
  assert.deepEqual(e, { status: 'ok', rule: 'the queue was empty within the window' });
});

test('STALL: messages ready all along, consumers attached, not one ack', () => {
  const e = evaluate(window([3, 2, 50], [3, 2, 50], [7, 2, 50]));
  assert.equal(e.status, 'stall');
  assert.equal(
    e.rule,
    '7 messages ready and 2 consumers attached, no ack in 120 s (3 observations)',
  );
});

test('WARN: consumers ack, yet the backlog grew at every step', () => {
  const e = evaluate(window([10, 1, 0], [15, 1, 5], [22, 1, 9], [30, 1, 12]));
  assert.equal(e.status, 'warn');
  assert.match(
    e.rule,
    /grew at each of the last 4 observations \(10 to 30 ready\) while consumers acked 12/,
  );
});

test('OK: acking, and the backlog did not grow at every step', () => {
  const e = evaluate(window([10, 1, 0], [15, 1, 5], [12, 1, 12], [30, 1, 20]));
  assert.deepEqual(e, {
    status: 'ok',
    rule: 'consumers ack and the backlog does not keep growing',
  });
});

test('one observation is too early to judge progress', () => {
  assert.equal(evaluate(window([5, 1, 0])).status, 'ok');
  assert.equal(evaluate([]).status, 'ok');
});

test('the window slides: an old stall ages out once acks resume', () => {
  const w = new StatusWindows();
  const observe = (i: number, ready: number, acked: number) => {
    w.record(new Map([['q', { atMs: i * 1000, ready, consumers: 1, acked }]]));
  };
  for (let i = 0; i < WINDOW; i++) observe(i, 5, 100);
  assert.equal(w.get('q')?.status, 'stall');
  observe(WINDOW, 6, 101);
  assert.equal(w.get('q')?.status, 'ok', 'the window now holds an ack');
  // Counters that go back (the queue was declared again) start the window over.
  observe(WINDOW + 1, 6, 3);
  assert.equal(w.get('q')?.rule, 'one observation so far: too early to judge progress');
  // A queue no longer listed is forgotten.
  w.record(new Map());
  assert.equal(w.get('q'), undefined);
});
