// `npm run test:unit`: the test files under the given folders that need no service (no broker,
// database, Prometheus, browser or child process), in one `node --test` run. A file needs one
// when it uses a helper that starts or reaches one; `npm test` runs everything with node's globs.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const NEEDS_A_SERVICE =
  /TestPipeline|TestPayments|TestExporter|TestPrometheus|createTestDatabase|createTestVhost|ADMIN_DATABASE_URL|startRole|RoleProcess|startExporterProcess|startDashboard|launchChromium|amqp\.connect|pg\.(Client|Pool)|npm pack/;
const roots = process.argv.slice(2);
if (roots.length === 0) {
  console.error('usage: node scripts/unit-tests.mjs <dir>...');
  process.exit(2);
}
const files = roots
  .flatMap((root) =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
      .map((e) => join(e.parentPath, e.name)),
  )
  .filter((f) => !f.split('/').includes('node_modules'))
  .filter((f) => !NEEDS_A_SERVICE.test(readFileSync(f, 'utf8')))
  .sort();
console.error(`running ${files.length} test files that need no service`);
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test' },
  },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
