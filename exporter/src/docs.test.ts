import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { REPOSITORY, docsUrl } from './docs.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(PACKAGE, '../docs');

/** Every .ts file under src/ but tests. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );

/** GitHub's anchor of a Markdown heading. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

test("the repository the messages link to is the package's repository and homepage", () => {
  const pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
    repository: { url: string; directory: string };
    homepage: string;
  };
  assert.equal(pkg.repository.url, `git+${REPOSITORY}.git`);
  assert.equal(pkg.repository.directory, 'exporter');
  assert.ok(pkg.homepage.startsWith(REPOSITORY), pkg.homepage);
  assert.equal(docsUrl('api.md'), `${REPOSITORY}/blob/main/docs/api.md`);
});

test('every docs page (and section) a message links to exists', () => {
  const calls = sources(join(PACKAGE, 'src')).flatMap((f) => [
    ...readFileSync(f, 'utf8').matchAll(/docsUrl\(\s*'([^']+)'(?:,\s*'([^']+)')?\s*\)/g),
  ]);
  assert.ok(calls.length >= 5, `${calls.length} links`);
  for (const [, page, section] of calls) {
    const file = join(DOCS, page!);
    assert.ok(existsSync(file), `docs/${page} does not exist`);
    if (section) {
      const headings = [...readFileSync(file, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) =>
        anchor(m[1]!),
      );
      assert.ok(headings.includes(section), `docs/${page} has no section #${section}`);
    }
  }
});
