import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueueCatalog } from '../../broker/catalog.js';
import { queueKey } from '../../broker/queue.js';
import { QueueStatuses } from './queue-status.js';

const depth = (ready: number, consumers: number) =>
  new Map([[queueKey('/', 'jobs'), { vhost: '/', queue: 'jobs', ready, unacked: 0, consumers }]]);
const text = (s: QueueStatuses) =>
  Buffer.concat(s.exposition('text').map((p) => p.bytes)).toString();
const line = (status: string, v: number) =>
  `acktrail_queue_status{vhost="/",queue="jobs",role="work",status="${status}"} ${v}`;

test('each scrape is an observation: STOP without waiting for a stats refresh', () => {
  const catalog = new QueueCatalog();
  const statuses = new QueueStatuses(240_000, catalog);
  // Listed by a refresh before the broker had statistics for it: no counts yet.
  statuses.refresh([{ vhost: '/', queue: 'jobs', counted: null }], null, 0);
  assert.doesNotMatch(text(statuses), /queue="jobs"/, 'not observed yet');
  statuses.observe(depth(0, 1), 15_000);
  assert.match(text(statuses), new RegExp(`^${line('ok', 1).replace(/[{}]/g, '\\$&')}$`, 'm'));
  const written = statuses.exposition('text')[1];
  statuses.observe(depth(0, 1), 30_000);
  assert.equal(statuses.exposition('text')[1], written, 'no status changed: the same bytes');
  statuses.observe(depth(3, 0), 45_000);
  const now = text(statuses);
  assert.ok(now.includes(line('stop', 1)) && now.includes(line('ok', 0)), now);
  catalog.observeDepth(depth(3, 0).values().next().value!, 45_000);
  assert.equal(catalog.summary(45_000)[0]?.status?.status, 'stop', 'the API sees it too');
  // A queue no refresh lists is not judged from scrapes.
  statuses.refresh([], null, 60_000);
  statuses.observe(depth(3, 0), 75_000);
  assert.doesNotMatch(text(statuses), /queue="jobs"/);
});

test('no counters anywhere: unknown, whatever the scrapes show', () => {
  const statuses = new QueueStatuses(240_000, new QueueCatalog());
  statuses.refresh([{ vhost: '/', queue: 'jobs', counted: null }], 'no counters', 0);
  statuses.observe(depth(3, 0), 15_000);
  assert.ok(text(statuses).includes(line('unknown', 1)));
  assert.ok(!text(statuses).includes('status="stop"'));
});
