// The project's shape, as a test. Function length is gated by lint (scripts/function-length.mjs):
// here, each function listed there as longer than the gate is held to its own figure and still
// passes the gate (a split function leaves the list), no other function of a listed file passes
// it, and the gate reaches the sources. A source file past 300 lines is a warning (a longer
// file often holds more than one idea): it is printed, not failed, since a split by size alone
// is worse than a long file of one idea. And a test that starts or reaches a service says so in
// its name (`*.int.test.ts`): `npm run test:unit` runs the others, by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { FUNCTION_LENGTH, LONGER_FUNCTIONS } from '../scripts/function-length.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAX_LINES = 300;
const isTest = (f: string) =>
  /\.test\.tsx?$/.test(f) || /(^|\/)(test|testing|fixtures)\//.test(f) || f.endsWith('.d.ts');

test(`a source file over ${MAX_LINES} lines is reported (a warning)`, (t) => {
  const files = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mjs'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && !isTest(f));
  assert.ok(files.length > 100, `the sources were found (${files.length})`);
  for (const f of files) {
    const lines = readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1;
    if (lines > MAX_LINES) t.diagnostic(`warning: ${f} has ${lines} lines (over ${MAX_LINES})`);
  }
});

/**
 * The functions of a file over the gate, by the gate's own rule (blank lines and comments
 * aside), each by the name the rule gives it ("constructor" for a constructor).
 */
function longFunctions(file: string): Map<string, number> {
  const linter = new Linter({ configType: 'flat', cwd: ROOT });
  const messages = linter.verify(
    readFileSync(join(ROOT, file), 'utf8'),
    [
      {
        files: ['**/*.{ts,tsx}'],
        languageOptions: {
          parser: tseslint.parser,
          parserOptions: { ecmaFeatures: { jsx: true } },
        },
        rules: { 'max-lines-per-function': ['error', { ...FUNCTION_LENGTH }] },
      },
    ],
    join(ROOT, file),
  );
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${file}: ${fatal.message}`);
  const long = new Map<string, number>();
  for (const m of messages) {
    const lines = /too many lines \((\d+)\)/.exec(m.message)?.[1];
    if (!lines) continue;
    const name =
      /'([^']+)'/.exec(m.message)?.[1] ??
      (/^Constructor/.test(m.message) ? 'constructor' : `line ${m.line}`);
    long.set(name, Math.max(long.get(name) ?? 0, Number(lines)));
  }
  return long;
}

test('each listed function is held to its own figure, and no other in its file passes the gate', () => {
  const wrong = Object.entries(LONGER_FUNCTIONS).flatMap(([file, listed]) => {
    if (!existsSync(join(ROOT, file))) return [`${file}: no such file`];
    const long = longFunctions(file);
    const out: string[] = [];
    for (const [name, max] of Object.entries(listed)) {
      const lines = long.get(name);
      if (lines === undefined) out.push(`${file}: ${name} is under the gate now; remove its line`);
      else if (lines > max) out.push(`${file}: ${name} has ${lines} lines, past its ${max}`);
      else if (lines < max) out.push(`${file}: ${name} has ${lines} lines; lower ${max}`);
    }
    for (const [name, lines] of long)
      if (!(name in listed)) out.push(`${file}: ${name} has ${lines} lines, over the gate`);
    return out;
  });
  assert.deepEqual(wrong, []);
});

test('the function-length gate reaches the sources, and only the listed files go past it', async () => {
  const eslint = new ESLint({ cwd: ROOT });
  const limit = async (file: string) => {
    const config = (await eslint.calculateConfigForFile(file)) as {
      rules?: Record<string, [number, { max: number }] | undefined>;
    };
    return config.rules?.['max-lines-per-function']?.[1].max;
  };
  assert.equal(await limit('exporter/src/collectors/rabbitmq/heads.ts'), FUNCTION_LENGTH.max);
  assert.equal(
    await limit('dashboard/lib/charts/overview.ts'),
    LONGER_FUNCTIONS['dashboard/lib/charts/overview.ts']!.overviewCharts,
  );
  assert.equal(await limit('exporter/src/config.test.ts'), undefined, 'tests are not gated');
  // A function one line over the gate, in a file not listed, is refused.
  const body = Array.from({ length: FUNCTION_LENGTH.max + 1 }, (_, i) => `  x += ${i};`);
  const [result] = await eslint.lintText(
    `export function long() {\n  let x = 0;\n${body.join('\n')}\n  return x;\n}\n`,
    { filePath: join(ROOT, 'scripts/gate-probe.mjs') },
  );
  assert.ok(
    result!.messages.some((m) => m.ruleId === 'max-lines-per-function'),
    JSON.stringify(result!.messages.map((m) => m.message)),
  );
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

test('test/ and bench/ reach the exporter through its package faces, never a deep src/ path', () => {
  const files = execFileSync('git', ['ls-files', 'test/*.ts', 'bench/*.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  assert.ok(files.length > 50, `the files were found (${files.length})`);
  const DEEP = /(?:from\s+|import\()\s*'(?:\.\.\/)+exporter\/(?:src|testing)\/[^']*'/g;
  const deep = files.flatMap((f) =>
    [...readFileSync(join(ROOT, f), 'utf8').matchAll(DEEP)].map((m) => `${f}: ${m[0]}`),
  );
  assert.deepEqual(deep, [], '@acktrail/exporter, @acktrail/exporter/testing[/…] instead');
});
