import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeNodes, type NodeAnswer } from './merge.js';
import { queueKey, type QueueDepth } from './detailed.js';

const depth = (queue: string, ready: number): QueueDepth => ({
  vhost: '/',
  queue,
  ready,
  unacked: 0,
  consumers: 1,
});
const answer = (name: string, ...queues: QueueDepth[]): NodeAnswer => ({
  name,
  node: name,
  queues: new Map(queues.map((q) => [queueKey(q.vhost, q.queue), q])),
});

test('every queue of every node, once', () => {
  const merged = mergeNodes(
    [answer('rabbit@b', depth('b1', 2)), answer('rabbit@a', depth('a1', 1), depth('a2', 3))],
    () => null,
  );
  assert.deepEqual([...merged.values()].map((q) => [q.queue, q.ready]).sort(), [
    ['a1', 1],
    ['a2', 3],
    ['b1', 2],
  ]);
});

test('a queue two nodes report (its leader moving) is taken from its listed leader', () => {
  const answers = [answer('rabbit@a', depth('q', 5)), answer('rabbit@b', depth('q', 7))];
  assert.equal(mergeNodes(answers, () => 'rabbit@b').get(queueKey('/', 'q'))?.ready, 7);
  assert.equal(mergeNodes(answers, () => 'rabbit@a').get(queueKey('/', 'q'))?.ready, 5);
  // No leader known, or one that did not report it: the first node by name, in any order.
  assert.equal(mergeNodes(answers, () => null).get(queueKey('/', 'q'))?.ready, 5);
  assert.equal(mergeNodes(answers.reverse(), () => 'rabbit@c').get(queueKey('/', 'q'))?.ready, 5);
});
