// @acktrail/instrument supports Node 22 LTS as well as 24: its own integration test (the amqplib
// hooks against the real broker) run by Node 22, the binary of the npm package that carries it
// (scripts/node22.sh, fetched once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO_ROOT } from '@acktrail/testing';

test("@acktrail/instrument's own test passes on Node 22", async () => {
  const node22 = execFileSync('bash', [join(REPO_ROOT, 'scripts/node22.sh')], {
    encoding: 'utf8',
  }).trim();
  assert.match(execFileSync(node22, ['--version'], { encoding: 'utf8' }), /^v22\./);
  const child = spawn(
    node22,
    ['--import', 'tsx', '--test', '--test-reporter=tap', 'instrument/src/amqplib.int.test.ts'],
    // Without the parent runner's NODE_TEST_CONTEXT: a run of its own, not a subtest of this one.
    { cwd: REPO_ROOT, env: { ...process.env, NODE_ENV: 'test', NODE_TEST_CONTEXT: undefined } },
  );
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, out);
  const passed = /^# pass (\d+)$/m.exec(out);
  assert.ok(passed && Number(passed[1]) > 0, out);
  assert.match(out, /^# fail 0$/m);
});
