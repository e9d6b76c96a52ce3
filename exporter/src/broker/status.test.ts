import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate, StatusWindows, type Observation } from './status.js';

/** The window's length in these tests: 240 s, observations 60 s apart. */
const W = 240_000;

/** Observations 60 s apart from [ready, consumers, acked] triples (acked null: a scrape's). */
const window = (...points: [number, number, number | null][]): Observation[] =>
  points.map(([ready, consumers, acked], i) => ({ atMs: i * 60_000, ready, consumers, acked }));

test('STOP: no consumer while messages wait, whatever came before', () => {
  const e = evaluate(window([0, 2, 10], [5, 2, 12], [9, 0, null]), W);
  assert.equal(e.status, 'stop');
  assert.equal(e.rule, 'no consumer while 9 messages wait');
  assert.equal(evaluate(window([1, 0, null]), W).rule, 'no consumer while 1 message waits');
});

test('OK: an empty queue without consumers is idle, not stopped', () => {
  assert.equal(evaluate(window([0, 0, 0], [0, 0, 0]), W).status, 'ok');
});

test('OK: empty at some point of the window, however slow the rest', () => {
  const e = evaluate(window([4, 1, 10], [0, 1, 14], [6, 1, 14], [9, 1, 14], [9, 1, 14]), W);
  assert.deepEqual(e, { status: 'ok', rule: 'the queue was empty within the window' });
});

test('STALL: messages ready all along, consumers attached, not one ack in a window', () => {
  const e = evaluate(window([3, 2, 50], [3, 2, null], [3, 2, 50], [5, 2, null], [7, 2, 50]), W);
  assert.equal(e.status, 'stall');
  assert.equal(e.rule, '7 messages ready and 2 consumers attached, no ack in 240 s');
});

test('no STALL before the queue was observed for a whole window, or without two ack counts', () => {
  const young = evaluate(window([3, 2, 50], [3, 2, 50], [3, 2, 50]), W);
  assert.equal(young.status, 'ok');
  assert.equal(young.rule, 'observed for 120 s of the 240 s window: too early to judge progress');
  // Scrapes alone (no ack count since the first): nothing says whether consumers acked.
  const scrapes = evaluate(
    window([3, 2, 50], [3, 2, null], [3, 2, null], [3, 2, null], [3, 2, null]),
    W,
  );
  assert.equal(scrapes.status, 'ok');
  assert.match(scrapes.rule, /no two ack counts a window \(240 s\) apart yet/);
});

test('WARN: consumers ack, yet the backlog grew at every step', () => {
  const e = evaluate(window([10, 1, 0], [15, 1, null], [22, 1, 9], [30, 1, null], [41, 1, 12]), W);
  assert.equal(e.status, 'warn');
  assert.match(
    e.rule,
    /grew at each of the last 5 observations \(10 to 41 ready\) while consumers acked 12/,
  );
});

test('OK: acking, and the backlog did not grow at every step', () => {
  const e = evaluate(window([10, 1, 0], [15, 1, 5], [12, 1, 12], [30, 1, 20], [31, 1, 20]), W);
  assert.deepEqual(e, {
    status: 'ok',
    rule: 'consumers ack and the backlog does not keep growing',
  });
});

test('the window counts time: scrapes in between, an old stall ages out once acks resume', () => {
  const w = new StatusWindows(W);
  const refresh = (s: number, ready: number, acked: number) =>
    w.observe('q', { atMs: s * 1000, ready, consumers: 1, acked });
  const scrape = (s: number, ready: number, consumers = 1) =>
    w.observe('q', { atMs: s * 1000, ready, consumers, acked: null });
  // A stats refresh every 120 s, a scrape every 15 s in between.
  for (let s = 0; s <= 240; s += 15) {
    if (s % 120 === 0) refresh(s, 5, 100);
    else scrape(s, 5);
  }
  assert.equal(w.get('q')?.status, 'stall');
  assert.equal(w.get('q')?.rule, '5 messages ready and 1 consumer attached, no ack in 240 s');
  // The consumer goes: STOP at the next scrape, without waiting for a refresh.
  assert.equal(scrape(255, 5, 0), true, 'the status changed');
  assert.equal(w.get('q')?.status, 'stop');
  assert.equal(scrape(270, 5, 1), true);
  refresh(360, 6, 101);
  assert.equal(w.get('q')?.status, 'ok', 'the window now holds an ack');
  // Counters that go back (the queue was declared again) start the window over.
  refresh(375, 6, 3);
  assert.match(w.get('q')!.rule, /observed for 0 s of the 240 s window/);
  // A queue no longer listed is forgotten.
  w.retain(new Set(['other']));
  assert.equal(w.get('q'), undefined);
});

test('at most one observation per tenth of the window, whatever the scrape interval', () => {
  const w = new StatusWindows(W);
  w.observe('q', { atMs: 0, ready: 5, consumers: 1, acked: 7 });
  for (let s = 1; s <= 1000; s++)
    w.observe('q', { atMs: s * 1000, ready: 5, consumers: 1, acked: null });
  const kept = (w as unknown as { windows: Map<string, Observation[]> }).windows.get('q')!;
  assert.ok(kept.length <= 13, `${kept.length} observations kept`);
  assert.ok(
    kept.some((o) => o.acked === 7),
    'the newest ack count before the window is kept',
  );
  assert.equal(kept.at(-1)!.atMs, 1_000_000, 'the newest observation is kept');
});

test("one queue's ack counts, read between refreshes: STALL a window after the acks stop", () => {
  const w = new StatusWindows(W);
  // One stats refresh at 0 (ack count 900 from /metrics/detailed), then a scrape every 15 s and
  // the management API's count of the same queue (40) read alone at each: a count of another kind.
  w.observe('q', { atMs: 0, ready: 3, consumers: 1, acked: 900 });
  for (let s = 15; s <= 240; s += 15) {
    w.observe('q', { atMs: s * 1000, ready: 3, consumers: 1, acked: null });
    w.observe('q', { atMs: s * 1000, ready: 3, consumers: 1, acked: 40, probed: true });
  }
  assert.equal(w.get('q')?.status, 'ok', '225 s of probed counts: not yet a window');
  assert.match(w.get('q')!.rule, /no two ack counts a window \(240 s\) apart yet/);
  w.observe('q', { atMs: 255_000, ready: 3, consumers: 1, acked: 40, probed: true });
  assert.equal(w.get('q')?.status, 'stall');
  assert.equal(w.get('q')?.rule, '3 messages ready and 1 consumer attached, no ack in 240 s');
  // An ack read alone ends it, though no refresh came.
  w.observe('q', { atMs: 270_000, ready: 3, consumers: 1, acked: 41, probed: true });
  assert.equal(w.get('q')?.status, 'ok');
});

test('ack counts of two kinds are never compared with each other', () => {
  // A refresh's count and a one-queue read's, a window apart, equal by chance or not: no pair.
  for (const probedCount of [50, 7]) {
    const e = evaluate(
      [
        { atMs: 0, ready: 3, consumers: 1, acked: 50 },
        { atMs: 120_000, ready: 3, consumers: 1, acked: null },
        { atMs: 240_000, ready: 3, consumers: 1, acked: probedCount, probed: true },
      ],
      W,
    );
    assert.equal(e.status, 'ok');
    assert.match(e.rule, /no two ack counts a window \(240 s\) apart yet/);
  }
  // A one-queue count lower than the refresh's is no reset of the window.
  const w = new StatusWindows(W);
  w.observe('q', { atMs: 0, ready: 3, consumers: 1, acked: 50 });
  w.observe('q', { atMs: 30_000, ready: 3, consumers: 1, acked: 7, probed: true });
  for (let s = 60; s <= 240; s += 30)
    w.observe('q', { atMs: s * 1000, ready: 3, consumers: 1, acked: 50 });
  assert.equal(w.get('q')?.status, 'stall', 'the refreshes alone make the pair');
});
