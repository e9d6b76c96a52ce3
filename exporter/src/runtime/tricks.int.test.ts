// The runtime tricks of docs/operations.md that only a fresh Node process can show, each checked
// on the Node that runs the tests, as the exporter applies it (runtime/flags.ts). Each fails,
// saying which, on a Node where the trick no longer applies. The others have their own tests:
// receiver/discard.test.ts (the HTTP parser), runtime/threads.test.ts (V8's helper threads),
// exposition/crc32.test.ts (crc32_combine).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { NODE_FLAGS } from './flags.js';

/** Runs `script` in a Node started with the exporter's flags; its last line of output, parsed. */
function inNode(script: string): unknown {
  const run = spawnSync(process.execPath, [...NODE_FLAGS, '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  });
  assert.equal(
    run.status,
    0,
    `Node ${process.version} refused ${NODE_FLAGS.join(' ')}: ${run.stderr.trim()}`,
  );
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

test("Node takes the exporter's V8 flags: gc exposed, the young generation near 2 x 16 MB", () => {
  // Node 24 sizes the young generation by the machine's memory: 128 MB at most here (24 GB)
  // without the flag, under the same churn.
  const seen = inNode(`
    const v8 = require('node:v8');
    const young = () =>
      v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    let most = 0;
    let keep = [];
    for (let i = 0; i < 2e7; i++) {
      keep.push({ i, s: 'x' + i });
      if (keep.length > 400000) keep = [];
      if (i % 100000 === 0) most = Math.max(most, young());
    }
    console.log(JSON.stringify({ gc: typeof gc, youngMb: most / 1048576 }));`) as {
    gc: string;
    youngMb: number;
  };
  assert.equal(seen.gc, 'function', '--expose-gc');
  // 2 x 16 MB semi-spaces, and V8's pages round it up a little (33.75 MB seen once in CI): the
  // bound is halfway to what a 64 MB semi-space gives, so a flag not applied still fails.
  assert.ok(seen.youngMb < 64, `--max-semi-space-size=16 not applied: ${seen.youngMb} MB`);
});

test('the last-resort collection gives the young generation back; a plain one keeps it', () => {
  // api/idle-collect.ts makes both: a plain one after a large scrape, the last resort when idle.
  const sizes = inNode(`
    const v8 = require('node:v8');
    const young = () =>
      v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const grow = () => {
      let keep = [];
      for (let i = 0; i < 3e6; i++) {
        keep.push({ i, s: 'x' + i });
        if (keep.length > 200000) keep = [];
      }
    };
    const start = young();
    grow();
    const grown = young();
    gc();
    const plain = young();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    console.log(JSON.stringify({ start, grown, plain, lastResort: young() }));`) as Record<
    'start' | 'grown' | 'plain' | 'lastResort',
    number
  >;
  assert.ok(sizes.grown > sizes.start, `the young generation grew: ${JSON.stringify(sizes)}`);
  assert.equal(sizes.plain, sizes.grown, 'a plain collection keeps the young generation');
  assert.ok(
    sizes.lastResort < sizes.grown,
    `Node ${process.version} ignored flavor 'last-resort': ${JSON.stringify(sizes)}`,
  );
});
