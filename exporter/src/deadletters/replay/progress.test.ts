// A bulk replay's progress: what each result adds, the results kept, and when the job stops
// itself because its replays come back dead-lettered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from './job-rows.js';
import { KEPT_RESULTS, countReplay, failedAgainStop } from './progress.js';

const job = (): Job => ({
  id: 'j',
  actor: 'alice',
  actorVerified: true,
  total: 0,
  done: 0,
  replayed: 0,
  failed: 0,
  failedAgain: 0,
  state: 'running',
  stopReason: null,
  startedAt: new Date(0).toISOString(),
  finishedAt: null,
  results: [],
});

test('a replay that went out counts as replayed and keeps its id; any other outcome as failed', () => {
  const j = job();
  const ids: string[] = [];
  countReplay(j, ids, {
    id: '1',
    eventId: 'e1',
    outcome: 'replayed',
    detail: null,
    replayId: 'r1',
  });
  countReplay(j, ids, { id: '2', eventId: null, outcome: 'not_parked', detail: null });
  countReplay(j, ids, { id: '3', eventId: 'e3', outcome: 'error', detail: 'broker down' });
  assert.deepEqual([j.done, j.replayed, j.failed], [3, 1, 2]);
  assert.deepEqual(ids, ['r1']);
  assert.deepEqual(
    j.results.map((r) => `${r.id}:${r.outcome}`),
    ['1:replayed', '2:not_parked', '3:error'],
  );
});

test(`only the latest ${KEPT_RESULTS} results are kept`, () => {
  const j = job();
  for (let i = 1; i <= KEPT_RESULTS + 5; i++)
    countReplay(j, [], { id: String(i), eventId: null, outcome: 'error', detail: null });
  assert.equal(j.results.length, KEPT_RESULTS);
  assert.equal(j.results[0]!.id, '6');
  assert.equal(j.done, KEPT_RESULTS + 5, 'the counts go on');
});

test('a job stops once more than the share of at least minReplays came back, never before', () => {
  const rule = { minReplays: 10, stopAfterFailedShare: 0.5, windowSeconds: 300 };
  assert.equal(failedAgainStop(rule, 9, 9), null, 'too few replays to judge');
  assert.equal(failedAgainStop(rule, 10, 5), null, 'exactly the share: goes on');
  assert.equal(
    failedAgainStop(rule, 10, 6),
    '6 of 10 replays were dead-lettered again within 300 s (more than 50 %): the cause is not fixed',
  );
});
