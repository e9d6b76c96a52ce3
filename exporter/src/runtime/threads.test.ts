// V8's helper threads run 10 nice steps below the event loop, which keeps its own priority.
import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { test } from 'node:test';
import { BACKGROUND_NICE, lowerHelperThreads } from './threads.js';
import { threadsOfThisProcess as threads } from '../../testing/threads.js';

test("V8's helper threads are lowered; the event loop is not", () => {
  const own = getPriority(0);
  const helpers = threads().filter((t) => t.name === 'V8Worker');
  assert.ok(helpers.length > 0, 'Node starts V8 helper threads');
  assert.equal(lowerHelperThreads(), helpers.length);
  const after = threads();
  assert.deepEqual(
    after.filter((t) => t.name === 'V8Worker').map((t) => t.nice),
    helpers.map(() => Math.min(19, own + BACKGROUND_NICE)),
  );
  assert.equal(getPriority(0), own, "the event loop's priority is unchanged");
  assert.ok(
    after.filter((t) => t.name !== 'V8Worker').every((t) => t.nice === own),
    `only the helpers: ${JSON.stringify(after)}`,
  );
});
