import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanUp } from './cleanup.js';

test('every step runs after one throws, and the error still reaches the caller', async () => {
  const ran: string[] = [];
  const missing = undefined as unknown as { close(): void };
  await assert.rejects(
    cleanUp(
      () => ran.push('browser'),
      () => {
        missing.close();
      },
      async () => {
        await Promise.resolve();
        ran.push('pipeline');
      },
    ),
    TypeError,
  );
  assert.deepEqual(ran, ['browser', 'pipeline']);
});

test('several failures: all of them, in order; none: resolves', async () => {
  const err = await cleanUp(
    () => {
      throw new Error('a');
    },
    () => {
      throw new Error('b');
    },
  ).catch((e: unknown) => e);
  assert.ok(err instanceof AggregateError);
  assert.deepEqual(
    err.errors.map((e: Error) => e.message),
    ['a', 'b'],
  );
  await cleanUp(() => undefined);
});
