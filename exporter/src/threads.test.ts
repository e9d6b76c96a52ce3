// V8's helper threads run 10 nice steps below the event loop, which keeps its own priority.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { test } from 'node:test';
import { BACKGROUND_NICE, lowerHelperThreads } from './threads.js';

/** Each thread of this process: its name and nice value (/proc/self/task/<tid>/stat, field 19). */
const threads = () =>
  readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return {
      name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(),
      nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]),
    };
  });

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
