// The API's handlers as plain functions, without HTTP: what they answer to bad input and to a
// store that is not there, with the status, the body and the headers Express will send.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { VERSION } from '../version.js';
import { journeyReply, listReply, metaReply, type EventsApiOptions } from './events.js';
import { queuesReply } from './queues.js';
import { deadLetterHandlers } from './dead-letters.js';
import { groupId } from './dead-letter-inputs.js';
import type { Reply } from './reply.js';

const config = loadConfig({});
const noStore: EventsApiOptions = {
  tokens: { read: null, operate: null },
  words: config.journeys.words,
  store: null,
  journeys: null,
  lists: { maxConcurrentPerToken: 2 },
  retentionDays: 14,
  log: createLogger('silent'),
};

test("meta: the exporter's version and the pipeline's words", () => {
  assert.deepEqual(metaReply(noStore), {
    status: 200,
    body: {
      version: VERSION,
      words: { aggregate: config.journeys.words.aggregate, done: config.journeys.words.done },
    },
  });
});

test('one journey: a bad id is 400 before anything is read; no store is 503 naming the setting', async () => {
  for (const id of ['', 'x'.repeat(129), 'a\nb', 'é']) {
    const r = await journeyReply(noStore, id);
    assert.equal(r.status, 400, JSON.stringify(id));
    assert.deepEqual(r.body, { error: 'event_id must be 1-128 printable ASCII characters' });
  }
  const r = await journeyReply(noStore, 'evt-1');
  assert.equal(r.status, 503);
  assert.match((r.body as { error: string }).error, /not configured \(ACKTRAIL_DATABASE_URL\)/);
});

test('a list: each bad parameter is named in the 400; valid ones reach the store', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ colour: 'red' }, /unknown parameter\(s\): colour/],
    [{ limit: '0' }, /^limit: /],
    [{ limit: '1001' }, /^limit: /],
    [{ anomaly: 'haunted' }, /^anomaly: /],
    [{ cursor: 'not-a-cursor' }, /^cursor: /],
  ];
  for (const [query, error] of cases) {
    const r = await listReply(noStore, query);
    assert.equal(r.status, 400, JSON.stringify(query));
    assert.match((r.body as { error: string }).error, error, JSON.stringify(query));
  }
  const r = await listReply(noStore, { aggregate_id: '42', limit: '10' });
  assert.equal(r.status, 503, 'valid: refused only for the missing store');
});

test('queues: a role that is not one of the three is 400; without a board, none', () => {
  const bad = queuesReply({ board: null }, 'poison');
  assert.deepEqual(bad, {
    status: 400,
    body: { error: 'role: must be work, retry or dead_letter' },
  });
  assert.deepEqual(queuesReply({ board: null }, ['work', 'retry']).status, 400);
  assert.deepEqual(queuesReply({ board: null }, 'work'), { status: 200, body: { queues: [] } });
});

test('dead letters: bad input is a 400 naming it, before parking being off (404) is said', async () => {
  const h = deadLetterHandlers({ parking: null, maxMessages: 3, log: noStore.log });
  const asker = { actor: { name: 'operator', verified: false }, scope: 'operate' as const };
  const refused = async (reply: Promise<Reply>, status: number, error: RegExp) => {
    const r = await reply;
    assert.equal(r.status, status);
    assert.match((r.body as { error: string }).error, error);
  };
  await refused(h.replay({ ids: ['1'], group: 'g' }, asker), 400, /group: is not a group id/);
  const g = groupId('orders.dlq', 'provider <n>');
  await refused(h.replay({ ids: ['1'], group: g }, asker), 400, /either ids or group/);
  await refused(h.replay({}, asker), 400, /either ids or group/);
  await refused(h.replay({ ids: ['1', '2', '3', '4'] }, asker), 400, /ids/);
  await refused(h.replay({ ids: ['1'], target: 'celery' }, asker), 400, /target/);
  await refused(h.discard({ ids: ['1'], reason: '  ' }, asker), 400, /reason/);
  await refused(h.one('12; DROP', asker), 400, /.+/);
  await refused(h.job('not-a-uuid'), 400, /.+/);
  await refused(h.replay({ ids: ['1'] }, asker), 404, /parking is off \(deadLetters\.enabled\)/);
  await refused(h.groups({}), 404, /parking is off/);
});
