// The overview's time range from its URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRange } from '../lib/data/range.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const at = (iso: string) => Date.parse(iso) / 1000;

test('a preset covers its span up to now, in about 120 steps of at least one scrape', () => {
  const r = parseRange({ range: '6h' }, NOW);
  assert.equal(r.preset, '6h');
  assert.equal(r.end, at('2026-11-30T12:00:00Z'));
  assert.equal(r.start, at('2026-11-30T06:00:00Z'));
  assert.equal(r.step, 180);
  assert.equal(r.rateWindow, '180s');
  assert.equal(parseRange({ range: '15m' }, NOW).step, 10, 'never finer than the scrape');
  assert.equal(parseRange({ range: '15m' }, NOW).rateWindow, '40s', 'four scrapes at least');
});

test('no range or an unknown one is the last hour', () => {
  assert.equal(parseRange({}, NOW).preset, '1h');
  assert.equal(parseRange({ range: '7d' }, NOW).preset, '1h');
});

test('a custom window is read as UTC and aligned to its step', () => {
  const r = parseRange({ from: '2026-11-30T06:40', to: '2026-11-30T08:40' }, NOW);
  assert.equal(r.preset, null);
  assert.equal(r.error, null);
  assert.equal(r.start, at('2026-11-30T06:40:00Z'));
  assert.equal(r.end, at('2026-11-30T08:40:00Z'));
  assert.equal(r.step, 60);
});

test('a custom window never reaches past now', () => {
  const r = parseRange({ from: '2026-11-30T11:00', to: '2026-12-01T00:00' }, NOW);
  assert.equal(r.end, at('2026-11-30T12:00:00Z'));
});

test('a bad custom window says what is wrong and falls back to the last hour', () => {
  assert.match(parseRange({ from: 'yesterday' }, NOW).error ?? '', /valid "from"/);
  assert.match(
    parseRange({ from: '2026-11-30T10:00', to: '2026-11-30T09:00' }, NOW).error ?? '',
    /"from" must be before "to"/,
  );
  assert.equal(parseRange({ from: 'yesterday' }, NOW).preset, '1h');
});

test('auto refresh is one of the offered intervals, otherwise off', () => {
  assert.equal(parseRange({ refresh: '30s' }, NOW).refresh, '30s');
  assert.equal(parseRange({ refresh: '1s' }, NOW).refresh, 'off');
});

test('the last point is at or after now: samples younger than one step are drawn', () => {
  const now = Date.parse('2026-11-30T12:00:07Z');
  const r = parseRange({ range: '15m' }, now);
  assert.ok(r.end >= now / 1000, `end ${r.end} before now`);
  assert.ok(r.end - now / 1000 < r.step, 'by less than one step');
  assert.equal(r.end % r.step, 0, 'still on a step');
  assert.equal(r.start % r.step, 0);
});
