// Runs every *.test.ts under the given folders in one `node --test` run, so the summary is
// Node's standard one. Node 20's --test takes no globs, hence this small collector. Files run one
// at a time: integration tests share the broker (one restarts it) and the machine has two cores.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

// --unit: only the files that need no service (no broker, database, Prometheus, browser or
// child process): those that use none of the helpers that start or reach one.
const NEEDS_A_SERVICE =
  /TestPipeline|TestPayments|TestExporter|TestPrometheus|createTestDatabase|createTestVhost|ADMIN_DATABASE_URL|startRole|RoleProcess|startExporterProcess|startDashboard|launchChromium|amqp\.connect|pg\.(Client|Pool)/;
const unit = process.argv[2] === '--unit';
const roots = process.argv.slice(unit ? 3 : 2);
if (roots.length === 0) {
  console.error('usage: node scripts/run-tests.mjs [--unit] <dir or file>...');
  process.exit(2);
}
const files = roots
  .flatMap((root) =>
    statSync(root).isFile()
      ? [root]
      : readdirSync(root, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
          .map((e) => join(e.parentPath, e.name)),
  )
  .filter((f) => !f.split('/').includes('node_modules'))
  .filter((f) => !unit || !NEEDS_A_SERVICE.test(readFileSync(f, 'utf8')))
  .sort();
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}
console.error(
  `running ${files.length} test files: ${files.map((f) => relative('.', f)).join(' ')}`,
);
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
