// Runs every *.test.ts under the given folders in one `node --test` run, so the summary is
// Node's standard one. Node 20's --test takes no globs, hence this small collector. Files run one
// at a time: integration tests share the broker (one restarts it) and the machine has two cores.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

const roots = process.argv.slice(2);
if (roots.length === 0) {
  console.error('usage: node scripts/run-tests.mjs <dir or file>...');
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
