// CeleryMetrics and events that arrive out of order: a worker that discards a task revoked before
// it arrived sends task-revoked with the task's id alone, and the sender's task-sent (name, queue)
// comes over a connection of its own, so it can arrive after. The final event waits for the name,
// a bounded time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { TaskEvent } from './events.js';
import { CeleryMetrics, HOLD_MS } from './metrics.js';

const OPTIONS = {
  maxTaskNames: 10,
  maxQueues: 10,
  maxTaskQueuePairs: 10,
  maxWorkers: 10,
  workerExpirySeconds: 60,
};

function event(type: TaskEvent['type'], uuid: string, named = false): TaskEvent {
  return {
    kind: 'task',
    type,
    uuid,
    timestamp: 1_700_000_000,
    hostname: 'worker@a',
    clock: null,
    name: named ? 'tasks.add' : null,
    rootId: null,
    parentId: null,
    retries: null,
    eta: null,
    queue: named ? 'celery' : null,
    runtime: null,
    exception: null,
    traceback: null,
  };
}

/** The series of acktrail_celery_tasks_total, by task/queue/state; `zeros`: with those at 0. */
async function counts(registry: Registry, zeros = false): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('acktrail_celery_tasks_total')!.get();
  return Object.fromEntries(
    metric.values
      .filter((v) => zeros || v.value > 0)
      .map((v) => [`${v.labels.task}/${v.labels.queue}/${v.labels.state}`, v.value]),
  );
}

test("a task's failed series is born at 0 with its first event, so the first failure is an increase", async () => {
  const { registry, metrics } = setUp();
  metrics.task(event('task-sent', 'z', true));
  assert.deepEqual(await counts(registry, true), {
    'tasks.add/celery/sent': 1,
    'tasks.add/celery/failed': 0,
  });
  metrics.task(event('task-failed', 'z'));
  assert.equal((await counts(registry))['tasks.add/celery/failed'], 1);
});

function setUp() {
  const clock = { ms: 1_000_000 };
  const registry = new Registry();
  const metrics = new CeleryMetrics(registry, OPTIONS, () => clock.ms);
  return { clock, registry, metrics };
}

test('task-revoked before its task-sent is counted under the name and queue task-sent brings', async () => {
  const { registry, metrics } = setUp();
  metrics.task(event('task-revoked', 'a'));
  assert.deepEqual(await counts(registry), {}, 'held while the name is unknown');
  metrics.task(event('task-sent', 'a', true));
  assert.deepEqual(await counts(registry), {
    'tasks.add/celery/sent': 1,
    'tasks.add/celery/revoked': 1,
  });
});

test('a final event whose name never comes is counted after the hold, at the next scrape', async () => {
  const { clock, registry, metrics } = setUp();
  metrics.task(event('task-revoked', 'b'));
  clock.ms += HOLD_MS - 1;
  assert.deepEqual(await counts(registry), {});
  clock.ms += 1;
  const after = await counts(registry);
  assert.equal(Object.keys(after).length, 1);
  assert.match(Object.keys(after)[0]!, /\/revoked$/);
  assert.equal(Object.values(after)[0], 1);
});

test('a final event after its task was named is counted at once', async () => {
  const { registry, metrics } = setUp();
  metrics.task(event('task-received', 'c', true));
  metrics.task(event('task-succeeded', 'c'));
  assert.deepEqual(await counts(registry), {
    'tasks.add/celery/received': 1,
    'tasks.add/celery/succeeded': 1,
  });
});
