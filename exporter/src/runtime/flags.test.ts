import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MALLOC_ENV, NODE_FLAGS, applyRuntimeFlags } from './flags.js';

interface Exec {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

function fakeProcess(execArgv: string[] = []) {
  const calls: Exec[] = [];
  const proc = {
    execPath: '/usr/bin/node',
    execArgv,
    argv: ['/usr/bin/node', '/app/exporter/dist/cli.js', 'serve'],
    execve: ((file: string, args: string[], env: NodeJS.ProcessEnv) => {
      calls.push({ file, args, env });
    }) as NodeJS.Process['execve'],
  };
  return { proc, calls };
}

test('a process started without the flags starts itself again with them, its own arguments kept', () => {
  const { proc, calls } = fakeProcess(['--enable-source-maps']);
  const result = applyRuntimeFlags(true, { PATH: '/bin' }, proc);
  assert.equal(result.kind, 'restarting');
  assert.equal(calls.length, 1);
  const [call] = calls;
  assert.equal(call!.file, '/usr/bin/node');
  assert.deepEqual(call!.args, [
    '/usr/bin/node',
    ...NODE_FLAGS,
    '--enable-source-maps',
    '/app/exporter/dist/cli.js',
    'serve',
  ]);
  assert.equal(call!.env.PATH, '/bin');
  assert.equal(call!.env.MALLOC_ARENA_MAX, MALLOC_ENV.MALLOC_ARENA_MAX);
  assert.equal(call!.env.MALLOC_TRIM_THRESHOLD_, MALLOC_ENV.MALLOC_TRIM_THRESHOLD_);
});

test('the process started again with the flags runs as it is', () => {
  const { proc, calls } = fakeProcess([...NODE_FLAGS]);
  const result = applyRuntimeFlags(true, { ...MALLOC_ENV, ACKTRAIL_RUNTIME_APPLIED: '1' }, proc);
  assert.equal(result.kind, 'applied');
  assert.equal(calls.length, 0);
});

test('flags given in NODE_OPTIONS count as given', () => {
  const { proc, calls } = fakeProcess();
  const result = applyRuntimeFlags(
    true,
    { ...MALLOC_ENV, NODE_OPTIONS: NODE_FLAGS.join(' ') },
    proc,
  );
  assert.equal(result.kind, 'applied');
  assert.equal(calls.length, 0);
});

test('started again but the flags were dropped on the way: runs as started, no second restart', () => {
  const { proc, calls } = fakeProcess();
  const result = applyRuntimeFlags(true, { ACKTRAIL_RUNTIME_APPLIED: '1' }, proc);
  assert.equal(result.kind, 'as-started');
  assert.equal(calls.length, 0);
});

test('ACKTRAIL_RUNTIME_FLAGS=off leaves the process as started', () => {
  const { proc, calls } = fakeProcess();
  const result = applyRuntimeFlags(false, {}, proc);
  assert.deepEqual(result, { kind: 'as-started', reason: 'ACKTRAIL_RUNTIME_FLAGS=off' });
  assert.equal(calls.length, 0);
});

test('a Node without process.execve runs as started and says why', () => {
  const { proc, calls } = fakeProcess();
  const result = applyRuntimeFlags(true, {}, { ...proc, execve: undefined as never });
  assert.deepEqual(result, {
    kind: 'as-started',
    reason: 'this Node cannot start itself again (process.execve)',
  });
  assert.equal(calls.length, 0);
});
