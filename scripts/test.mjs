// `npm test`: every test file, unit (`*.test.ts`) and integration (`*.int.test.ts`), in two
// `node --test` runs: first all but the files that stop a shared service (they would pull the
// broker or PostgreSQL from under the others), ACKTRAIL_TEST_CONCURRENCY files at a time
// (default 1); then those files, alone. Every integration file has a database and a vhost of its
// own (@acktrail/testing), which is what lets the first run go side by side.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
/** They stop RabbitMQ's app or PostgreSQL on this machine: run alone, last. */
const ALONE = ['examples/orders/src/restarts.int.test.ts', 'test/start-order.int.test.ts'];

/**
 * Started first, longest first, so that none of them is left running alone at the end: the
 * slowest files of a run at 6 at a time (2026-12-02; every run prints its slowest files last).
 * Most of their time is waiting (alerts' `for`, timeouts, a cluster node's restart), which the
 * files started after them fill with work.
 */
const FIRST = [
  'test/prometheus-live.int.test.ts',
  'test/journey-failures.int.test.ts',
  'dashboard/test/browser.int.test.ts',
  'examples/orders/src/faults/faults.int.test.ts',
  'test/payments-failures.int.test.ts',
  'test/rabbitmq-cluster.int.test.ts',
  'test/celery.int.test.ts',
];
const TIMES = fileURLToPath(new URL('./test-times.mjs', import.meta.url));

const concurrency = Number(process.env.ACKTRAIL_TEST_CONCURRENCY ?? '6');
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

const run = (list, n) => {
  console.error(`running ${list.length} test files, ${n} at a time`);
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${n}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${TIMES}`,
      '--test-reporter-destination=stderr',
      ...list,
    ],
    { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
  );
  return r.status ?? 1;
};
const first = run(
  [...FIRST, ...files.filter((f) => !ALONE.includes(f) && !FIRST.includes(f))],
  concurrency,
);
const last = run(ALONE, 1);
process.exit(first || last);
