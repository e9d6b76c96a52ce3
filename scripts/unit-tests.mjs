// `npm run test:unit`: the test files under the given folders that need no service (no broker,
// database, Prometheus, browser or child process), in one `node --test` run. They are told apart
// by name: a file that starts or reaches a service is `*.int.test.ts` (an integration test), and
// `npm test` runs both kinds with node's globs.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const roots = process.argv.slice(2);
if (roots.length === 0) {
  console.error('usage: node scripts/unit-tests.mjs <dir>...');
  process.exit(2);
}
const files = roots
  .flatMap((root) =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.test.ts') && !e.name.endsWith('.int.test.ts'))
      .map((e) => join(e.parentPath, e.name)),
  )
  .filter((f) => !f.split('/').includes('node_modules'))
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
