// acktrail_build_info's revision: what the build records, and what is read back.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { REPO_ROOT } from '@acktrail/testing';
import { revisionOf } from './version.js';

const dir = mkdtempSync(join(tmpdir(), 'acktrail-revision-'));
const write = (env: Record<string, string>) => {
  const out = join(dir, `${Object.keys(env).length}.json`);
  const { SOURCE_REVISION: _drop, ...rest } = process.env;
  execFileSync('node', [join(REPO_ROOT, 'scripts/write-revision.mjs'), out], {
    cwd: REPO_ROOT,
    env: { ...rest, ...env },
  });
  return out;
};

test("the build records the checkout's revision, or the one it is given", () => {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(revisionOf(pathToFileURL(write({}))), head.trim());
  const given = write({ SOURCE_REVISION: 'v0.1.0-3-gabc1234' });
  assert.deepEqual(JSON.parse(readFileSync(given, 'utf8')), { revision: 'v0.1.0-3-gabc1234' });
  assert.equal(revisionOf(pathToFileURL(given)), 'v0.1.0-3-gabc1234');
});

test('a missing, broken or forged revision file reads as unknown, never as a label value', () => {
  assert.equal(revisionOf(pathToFileURL(join(dir, 'absent.json'))), 'unknown');
  const cases = ['not json', '{"revision": 7}', `{"revision": "a\\"} 1\\nfake_metric 1"}`];
  cases.forEach((text, i) => {
    const file = join(dir, `bad-${i}.json`);
    writeFileSync(file, text);
    assert.equal(revisionOf(pathToFileURL(file)), 'unknown', text);
  });
});
