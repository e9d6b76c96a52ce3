// The process's last resort, in a process of its own: a lost connection's error (as pg raises
// 57P01) is survived, a promise rejected with nobody waiting is logged and survived, and an
// exception thrown out of a callback ends the process with 1, each logged with its part and
// counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { lostConnection } from './last-resort.js';

test('lost connections are told apart from everything else', () => {
  const terminated = Object.assign(
    new pg.DatabaseError('terminating connection due to administrator command', 0, 'error'),
    { code: '57P01', severity: 'FATAL' },
  );
  assert.deepEqual(lostConnection(terminated), { part: 'database' });
  assert.deepEqual(lostConnection(new Error('Connection terminated unexpectedly')), {
    part: 'database',
  });
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  assert.deepEqual(lostConnection(reset), { part: 'connection' });
  const syntax = Object.assign(new pg.DatabaseError('syntax error', 0, 'error'), {
    code: '42601',
    severity: 'ERROR',
  });
  assert.equal(lostConnection(syntax), null, 'a statement error is no lost connection');
  assert.equal(lostConnection(new TypeError('x is undefined')), null);
  assert.equal(lostConnection('a string'), null);
});

const MODULE = fileURLToPath(new URL('./last-resort.ts', import.meta.url));
const SCRIPT = `
import pg from 'pg';
import { pino } from 'pino';
import { guardProcess } from ${JSON.stringify(MODULE)};
const counted = [];
guardProcess(pino({ level: 'info' }), (part) => counted.push(part), (code) => {
  console.log(JSON.stringify({ counted }));
  process.exit(code);
});
const lost = Object.assign(new pg.DatabaseError('terminating connection due to administrator command', 0, 'error'), { code: '57P01', severity: 'FATAL' });
// Each event schedules the next before it happens: the order holds however loaded the machine is.
setTimeout(() => {
  setTimeout(() => {
    setTimeout(() => {
      setTimeout(() => { console.log(JSON.stringify({ msg: 'still running after the fatal one' })); }, 2000);
      throw new TypeError('half-way through a callback');
    }, 0);
    void Promise.reject(new TypeError('nobody waits for this'));
  }, 0);
  throw lost;
}, 0);
`;

test('survives a lost connection and a stray rejection; exits 1 on an uncaught exception', () => {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', SCRIPT],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  const lines = child.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(child.status, 1, child.stderr);
  // pino writes asynchronously and flushes at exit: its lines reach stdout in no set order, after
  // or before the count's line (console.log). Each is checked on its own, in level order; the
  // events' order is proven by the rejection's line at all (the fatal one exits at once).
  const said = lines
    .filter((l) => 'level' in l)
    .map((l) => [l.level, l.part, l.msg])
    .sort((a, b) => Number(a[0]) - Number(b[0]));
  assert.deepEqual(said, [
    [40, 'database', 'a lost connection reached the process unhandled; its owner reconnects'],
    [50, 'process', 'a promise failed with nobody waiting for it'],
    [60, 'process', 'unrecoverable error: exiting for a supervisor to restart'],
  ]);
  assert.deepEqual(
    lines.find((l) => 'counted' in l),
    { counted: ['database', 'process', 'process'] },
  );
  assert.ok(!lines.some((l) => l.msg === 'still running after the fatal one'));
});
