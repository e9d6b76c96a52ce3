// `npm test`: every test file, unit (`*.test.ts`) and integration (`*.int.test.ts`), in two
// node:test runs: first all but the files that stop a shared service (they would pull the broker
// or PostgreSQL from under the others), ACKTRAIL_TEST_CONCURRENCY files at a time (default 4), the
// slowest first; then those files, alone. Every integration file has a database and a vhost of its
// own (@acktrail/testing), which is what lets the first run go side by side.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import testTimes from './test-times.mjs';

const ROOTS = [
  'conventions/src',
  'instrument/src',
  'exporter/src',
  'examples/orders/src',
  'examples/payments/src',
  'testing/src',
  'dashboard/test',
  'test',
];
/** Run alone, last: they stop RabbitMQ's app or PostgreSQL on this machine, or load it. */
const ALONE = [
  'examples/orders/src/restarts.int.test.ts',
  'test/start-order.int.test.ts',
  // Restarts scripts/pg-replica.sh's primary, which test/store-replica.int.test.ts reads.
  'test/database-restart.int.test.ts',
  // Builds the images: minutes of npm ci and builds that would starve the files beside it.
  'test/images.int.test.ts',
];

/**
 * Started first, longest first, so that none of them is left running alone at the end: the
 * slowest files of a run (2026-12-02; every run prints its slowest files and the last to end).
 * Most of their time is waiting (alerts' `for`, timeouts, a pipeline's retries), which the files
 * started after them fill with work. Not test/rabbitmq-cluster.int.test.ts: stopping and
 * starting its nodes under this start's load took longer than its commands allow; it starts
 * later, in name order, as the load falls.
 */
const FIRST = [
  'test/prometheus-live.int.test.ts',
  'test/journey-failures.int.test.ts',
  'dashboard/test/browser.int.test.ts',
  'examples/orders/src/faults/faults.int.test.ts',
  'test/payments-failures.int.test.ts',
  'test/celery.int.test.ts',
];
// 4, not 6: on a slower two-core machine six at a time ran at load 10 to 22 and failed on
// timing bounds in three of four CI runs (docs in README).
const concurrency = Number(process.env.ACKTRAIL_TEST_CONCURRENCY ?? '4');
/**
 * A test that has not ended after this fails, and its file's process exits once its tests have
 * (forceExit): a hang costs one file its slot for ten minutes, not CI its 90. The slowest test
 * takes about a minute here.
 */
const TEST_TIMEOUT_MS = 10 * 60_000;
/** A file still running after this is named on stderr, every time this passes again. */
const FILE_WARN_MS = 8 * 60_000;
/**
 * A file's process that used no CPU at all for this long is hung, and is killed so that its file
 * fails now: every test polls, runs timers or talks to a service. Seen once (2026-12-03): a unit
 * file stuck before its first test, every thread in a futex wait inside the loader, past the
 * per-test timeout (it applies to tests, not to a file that never loads).
 */
const STUCK_MS = 5 * 60_000;
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error('ACKTRAIL_TEST_CONCURRENCY must be a positive integer');
  process.exit(2);
}
const files = ROOTS.flatMap((root) =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name)),
)
  .filter((f) => !f.split('/').includes('node_modules'))
  .sort();
const missing = [...ALONE, ...FIRST].filter((f) => !files.includes(f));
if (missing.length) {
  console.error(`scripts/test.mjs: ${missing.join(', ')} not found; update ALONE or FIRST`);
  process.exit(2);
}

/**
 * One `node --test` run through its API, which starts the files in the order given (the CLI sorts
 * them by name): spec on stdout, the files' times on stderr. Resolves true when nothing failed.
 */
async function runFiles(list, n) {
  console.error(`running ${list.length} test files, ${n} at a time`);
  const stream = run({
    files: list.map((f) => resolve(f)),
    concurrency: n,
    timeout: TEST_TIMEOUT_MS,
    forceExit: true,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_ENV: 'test' },
  });
  let failed = false;
  stream.on('test:fail', () => {
    failed = true;
  });
  const running = watchFiles(stream);
  const stuck = killStuck();
  await Promise.all([
    pipeline(stream.compose(spec), process.stdout, { end: false }),
    pipeline(stream.compose(testTimes), process.stderr, { end: false }),
  ]).finally(() => {
    clearInterval(running);
    clearInterval(stuck);
  });
  return !failed;
}

/** Names on stderr, every FILE_WARN_MS, the files that have run longer than that. */
function watchFiles(stream) {
  const since = new Map();
  const fileEvent = (data) => data?.file && data.nesting === 0 && data.file.endsWith(data.name);
  stream.on('test:dequeue', (data) => {
    if (fileEvent(data)) since.set(data.file, Date.now());
  });
  stream.on('test:complete', (data) => {
    if (fileEvent(data)) since.delete(data.file);
  });
  return setInterval(() => {
    for (const [file, from] of since) {
      const s = (Date.now() - from) / 1000;
      if (s * 1000 > FILE_WARN_MS) console.error(`still running after ${s.toFixed(0)} s: ${file}`);
    }
  }, FILE_WARN_MS).unref();
}

/** Kills, every half minute, a test file's process whose CPU time has not moved in STUCK_MS. */
function killStuck() {
  if (!existsSync('/proc/self/stat')) return undefined;
  const seen = new Map(); // pid -> { cpu, since }
  const read = (path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null; // it ended meanwhile
    }
  };
  return setInterval(() => {
    const now = Date.now();
    const alive = new Set();
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      const stat = read(`/proc/${pid}/stat`);
      // After the command name (in parentheses, which may hold spaces): state, ppid, … utime
      // and stime are the 12th and 13th.
      const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (!fields || Number(fields[1]) !== process.pid) continue;
      alive.add(pid);
      const cpu = Number(fields[11]) + Number(fields[12]);
      const was = seen.get(pid);
      if (!was || was.cpu !== cpu) seen.set(pid, { cpu, since: now });
      else if (now - was.since >= STUCK_MS) {
        const file = (read(`/proc/${pid}/cmdline`) ?? '')
          .split('\0')
          .find((a) => a.endsWith('.ts'));
        console.error(`no CPU for ${STUCK_MS / 60_000} min, killed as hung: ${file ?? pid}`);
        process.kill(Number(pid), 'SIGKILL');
        seen.delete(pid);
      }
    }
    for (const pid of seen.keys()) if (!alive.has(pid)) seen.delete(pid);
  }, 30_000).unref();
}

const first = await runFiles(
  [...FIRST, ...files.filter((f) => !ALONE.includes(f) && !FIRST.includes(f))],
  concurrency,
);
const last = await runFiles(ALONE, 1);
process.exit(first && last ? 0 : 1);
