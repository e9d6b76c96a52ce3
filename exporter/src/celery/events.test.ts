// Celery events from anyone who can publish on `celeryev` get the checks an OTLP span gets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBody, parseEvent, type EventLimits } from './events.js';

const now = Date.now() / 1000;
const limits: EventLimits = { fromS: now - 14 * 86_400, toS: now + 86_400, maxMessageBytes: 4096 };
const task = (over: Record<string, unknown>) => ({
  type: 'task-started',
  uuid: '5f3c1f9e-6f5e-4d59-9d4c-2d0d9c3b1a10',
  timestamp: now,
  hostname: 'w1@host',
  ...over,
});
const reason = (e: unknown) => {
  const p = parseEvent(e, limits);
  return p.kind === 'skipped' ? p.reason : p.kind;
};

test('ids: printable ASCII, 1-128 characters, checked after a cut', () => {
  assert.equal(reason(task({})), 'task');
  assert.equal(reason(task({ uuid: 'a\u0000b' })), 'invalid_id');
  assert.equal(reason(task({ uuid: 'naïve' })), 'invalid_id');
  assert.equal(reason(task({ uuid: 'x'.repeat(129) })), 'invalid_id');
  assert.equal(reason(task({ uuid: 'x'.repeat(1024 * 1024) })), 'invalid_id');
  assert.equal(reason(task({ uuid: 7 })), 'malformed');
});

test('timestamps inside the retention window only: never a partition for the far future', () => {
  assert.equal(reason(task({ timestamp: now + 2 * 86_400 })), 'out_of_window');
  assert.equal(reason(task({ timestamp: 4_102_444_800 })), 'out_of_window'); // 2100
  assert.equal(reason(task({ timestamp: now - 15 * 86_400 })), 'out_of_window');
  assert.equal(reason(task({ timestamp: 'soon' })), 'malformed');
  assert.equal(
    reason({ type: 'worker-heartbeat', hostname: 'w', timestamp: 1e12 }),
    'out_of_window',
  );
});

test('strings are bounded and cleaned: no NUL, no lone surrogate, no address', () => {
  const e = parseEvent(
    task({
      name: `tasks.\u0000send\ud800${'x'.repeat(100_000)}`,
      hostname: 'w\u0000@host',
      exception: 'ValueError: no such user bob@example.com',
      traceback: `Traceback\n${'  File "a.py", line 1, in f\n'.repeat(50_000)}ValueError: boom`,
    }),
    limits,
  );
  assert.ok(e.kind === 'task', e.kind);
  assert.equal(e.name!.length, 201);
  assert.ok(e.name!.startsWith('tasks.send\ufffd'));
  assert.equal(e.hostname, 'w@host');
  assert.equal(e.exception, 'ValueError: no such user <email>');
  assert.ok(e.traceback!.length <= 16_384, 'only the tail a summary reads is kept');
  assert.ok(e.traceback!.endsWith('ValueError: boom'));
});

test('a message past maxMessageBytes is set aside unread; a list is checked event by event', () => {
  assert.deepEqual(parseBody(Buffer.alloc(5000, 0x20), limits), [
    { kind: 'skipped', reason: 'too_large' },
  ]);
  const list = parseBody(
    Buffer.from(JSON.stringify([task({}), task({ uuid: '' }), task({ type: 'task-sneezed' })])),
    limits,
  );
  assert.deepEqual(
    list.map((p) => (p.kind === 'skipped' ? p.reason : p.kind)),
    ['task', 'malformed', 'unknown_type'],
  );
});

test('a worker heartbeat with a silly period is held to a sane one', () => {
  const w = parseEvent(
    { type: 'worker-heartbeat', hostname: 'w', timestamp: now, freq: 1e9 },
    limits,
  );
  assert.equal(w.kind === 'worker' ? w.freq : null, 3600);
});
