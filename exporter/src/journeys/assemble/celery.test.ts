// The kinds of a Celery task's journey, from Celery's own events (the task's "spans"): each
// final state, a retry, and a task still on its way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseEvent, type EventLimits } from '../../celery/events.js';
import { assembleCeleryTask } from './celery.js';
import { taskStep } from '../../celery/steps.js';

const T = Date.parse('2026-11-30T12:00:00Z') / 1000;
const limits: EventLimits = { fromS: 0, toS: Number.MAX_SAFE_INTEGER, maxMessageBytes: 1e6 };
const TASK = '0b7e6f3e-4a3c-4f0e-8a6d-2f1e9c8b7a65';

function journeyOf(events: Record<string, unknown>[]) {
  const steps = events.map((e, i) => {
    const p = parseEvent(
      { uuid: TASK, hostname: 'w1@host', timestamp: T + i, clock: i, name: 'tasks.charge', ...e },
      limits,
    );
    if (p.kind !== 'task') throw new Error(`fixture event ${String(e.type)}: ${p.kind}`);
    return taskStep(p, undefined);
  });
  return assembleCeleryTask(TASK, steps, []);
}

test('task_succeeded', () => {
  const j = journeyOf([
    { type: 'task-sent', queue: 'celery' },
    { type: 'task-received' },
    { type: 'task-started' },
    { type: 'task-succeeded', runtime: 0.25 },
  ]);
  assert.deepEqual(j.kinds, ['task_succeeded']);
  assert.equal(j.verdict, 'tasks.charge succeeded on w1@host in 250 ms');
});

test('retried, then task_failed with its exception', () => {
  const j = journeyOf([
    { type: 'task-received' },
    { type: 'task-started' },
    { type: 'task-retried', exception: "RuntimeError('psp 503')" },
    { type: 'task-received', retries: 1 },
    { type: 'task-started' },
    { type: 'task-failed', exception: "ValueError('card declined')" },
  ]);
  assert.deepEqual(j.kinds, ['retried', 'task_failed']);
  assert.equal(
    j.verdict,
    "tasks.charge failed on w1@host after 1 retry: ValueError('card declined')",
  );
});

test('task_revoked and task_rejected', () => {
  assert.deepEqual(journeyOf([{ type: 'task-received' }, { type: 'task-revoked' }]).kinds, [
    'task_revoked',
  ]);
  assert.deepEqual(journeyOf([{ type: 'task-received' }, { type: 'task-rejected' }]).kinds, [
    'task_rejected',
  ]);
});

test('a task still on its way is in flight', () => {
  const j = journeyOf([{ type: 'task-sent', queue: 'celery' }]);
  assert.deepEqual(j.kinds, ['in_flight']);
  assert.equal(j.verdict, 'tasks.charge was sent to queue celery and waits for a worker');
});
