// Writes the source revision a build was made from to the file named by its argument (the
// exporter's dist/revision.json), for acktrail_build_info{revision}: SOURCE_REVISION when set (a
// Docker build has no .git: `docker build --build-arg SOURCE_REVISION=$(git rev-parse HEAD)`),
// else the checkout's `git rev-parse HEAD`, else "unknown".
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/write-revision.mjs <file>');
  process.exit(2);
}
function revision() {
  if (process.env.SOURCE_REVISION) return process.env.SOURCE_REVISION;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return 'unknown';
  }
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ revision: revision() })}\n`);
