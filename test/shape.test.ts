// The project's shape, as a test: no source file (tests, fixtures and generated files aside) grows
// past 300 lines (a longer one holds more than one idea and is split by what it does), and a test
// that starts or reaches a service says so in its name (`*.int.test.ts`): `npm run test:unit`
// runs the others, by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAX_LINES = 300;
const isTest = (f: string) =>
  /\.test\.tsx?$/.test(f) || /(^|\/)(test|testing|fixtures)\//.test(f) || f.endsWith('.d.ts');

test(`no source file over ${MAX_LINES} lines`, () => {
  const files = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mjs'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && !isTest(f));
  assert.ok(files.length > 100, `the sources were found (${files.length})`);
  const long = files
    .map((f) => ({ f, lines: readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ f, lines }) => `${f}: ${lines}`);
  assert.deepEqual(long, []);
});

/** The helpers that start or reach a broker, a database, Prometheus, a browser or a process. */
const USES_A_SERVICE =
  /TestPipeline|TestPayments|TestExporter|TestPrometheus|createTestDatabase|createTestVhost|ADMIN_DATABASE_URL|startRole|RoleProcess|startExporterProcess|startDashboard|launchChromium|amqp\.connect|pg\.(Client|Pool)|npm pack/;

test('a test that uses a service is named *.int.test.ts', () => {
  const unit = execFileSync('git', ['ls-files', '*.test.ts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    // This file names the helpers; it uses none.
    .filter((f) => f && !f.endsWith('.int.test.ts') && f !== 'test/shape.test.ts');
  assert.ok(unit.length > 20, `the unit tests were found (${unit.length})`);
  const misnamed = unit.filter((f) => USES_A_SERVICE.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(misnamed, []);
});
