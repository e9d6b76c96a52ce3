import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueueBoard } from './board.js';
import { Topology } from '../../broker/topology.js';

/** No queue known: the board's depths and statuses are what these tests read. */
const noTopology = { current: Topology.EMPTY };
import { queueKey } from '../../broker/queue.js';
import { QueueStatuses } from './queue-status.js';

const depth = (ready: number, consumers: number) =>
  new Map([[queueKey('/', 'jobs'), { vhost: '/', queue: 'jobs', ready, unacked: 0, consumers }]]);
const text = async (s: QueueStatuses) =>
  Buffer.concat(await Promise.all(s.exposition('text').map((p) => p.read()))).toString();
const line = (status: string, v: number) =>
  `acktrail_queue_status{vhost="/",queue="jobs",role="work",status="${status}"} ${v}`;

test('each scrape is an observation: STOP without waiting for a stats refresh', async () => {
  const board = new QueueBoard(noTopology);
  const statuses = new QueueStatuses(240_000, board);
  // Listed by a refresh before the broker had statistics for it: no counts yet.
  statuses.refresh([{ vhost: '/', queue: 'jobs', counted: null }], null, 0);
  assert.doesNotMatch(await text(statuses), /queue="jobs"/, 'not observed yet');
  statuses.observe(depth(0, 1), 15_000);
  assert.match(
    await text(statuses),
    new RegExp(`^${line('ok', 1).replace(/[{}]/g, '\\$&')}$`, 'm'),
  );
  const written = statuses.exposition('text')[1];
  statuses.observe(depth(0, 1), 30_000);
  assert.equal(statuses.exposition('text')[1], written, 'no status changed: the same bytes');
  statuses.observe(depth(3, 0), 45_000);
  const now = await text(statuses);
  assert.ok(now.includes(line('stop', 1)) && now.includes(line('ok', 0)), now);
  board.observeDepth(depth(3, 0).values().next().value!, 45_000);
  assert.equal(board.summary(45_000)[0]?.status?.status, 'stop', 'the API sees it too');
  // A queue no refresh lists is not judged from scrapes.
  statuses.refresh([], null, 60_000);
  statuses.observe(depth(3, 0), 75_000);
  assert.doesNotMatch(await text(statuses), /queue="jobs"/);
});

test('no counters anywhere: unknown, whatever the scrapes show', async () => {
  const statuses = new QueueStatuses(240_000, new QueueBoard(noTopology));
  statuses.refresh([{ vhost: '/', queue: 'jobs', counted: null }], 'no counters', 0);
  statuses.observe(depth(3, 0), 15_000);
  assert.ok((await text(statuses)).includes(line('unknown', 1)));
  assert.ok(!(await text(statuses)).includes('status="stop"'));
});

test('the queues that could be stalling, for a read of their ack counts alone', () => {
  const statuses = new QueueStatuses(240_000, new QueueBoard(noTopology));
  const work = ['idle', 'busy', 'held', 'gone'].map((queue) => ({
    vhost: '/',
    queue,
    counted: null,
  }));
  const depths = (ready: number[], consumers: number[]) =>
    new Map(
      work.map((w, i) => [
        queueKey('/', w.queue),
        { vhost: '/', queue: w.queue, ready: ready[i]!, unacked: 0, consumers: consumers[i]! },
      ]),
    );
  const names = (qs: { queue: string }[]) => qs.map((q) => q.queue);
  // Without statistics in the management API there is nothing to read one by one.
  statuses.refresh(work, null, 0, false);
  statuses.observe(depths([0, 4, 2, 5], [1, 2, 1, 0]), 15_000);
  assert.deepEqual(statuses.suspects(10, 12_000, 15_000), []);
  statuses.refresh(work, null, 20_000, true);
  statuses.observe(depths([0, 4, 2, 5], [1, 2, 1, 0]), 30_000);
  // Empty (idle) or without consumers (gone: that is STOP) cannot be stalling.
  assert.deepEqual(names(statuses.suspects(10, 12_000, 30_000)), ['busy', 'held']);
  assert.deepEqual(names(statuses.suspects(1, 12_000, 30_000)), ['busy'], 'at most max');
  // Read at 30 s: due again 12 s later, the longest unread first.
  statuses.observeAcks(
    new Map([[queueKey('/', 'busy'), { ready: 4, consumers: 2, acked: 9 }]]),
    30_000,
  );
  assert.deepEqual(names(statuses.suspects(10, 12_000, 35_000)), ['held']);
  assert.deepEqual(names(statuses.suspects(10, 12_000, 42_000)), ['held', 'busy']);
});

test('ack counts read alone between refreshes: STALL without a second refresh', async () => {
  const statuses = new QueueStatuses(240_000, new QueueBoard(noTopology));
  statuses.refresh([{ vhost: '/', queue: 'jobs', counted: null }], null, 0, true);
  const key = queueKey('/', 'jobs');
  for (let s = 15; s <= 255; s += 15) {
    statuses.observe(depth(2, 1), s * 1000);
    statuses.observeAcks(new Map([[key, { ready: 2, consumers: 1, acked: 17 }]]), s * 1000);
  }
  assert.ok((await text(statuses)).includes(line('stall', 1)), await text(statuses));
  // A read for a queue no refresh lists is dropped.
  statuses.observeAcks(
    new Map([[queueKey('/', 'other'), { ready: 2, consumers: 1, acked: 1 }]]),
    270_000,
  );
  assert.doesNotMatch(await text(statuses), /queue="other"/);
});
