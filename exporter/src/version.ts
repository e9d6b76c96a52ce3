import { readFileSync } from 'node:fs';

/** The exporter's package version, for acktrail_build_info. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * The source revision the build was made from (dist/revision.json, written by the build:
 * scripts/write-revision.mjs), for acktrail_build_info; "unknown" when it was not recorded.
 */
export function revisionOf(file: URL = new URL('../dist/revision.json', import.meta.url)): string {
  try {
    const { revision } = JSON.parse(readFileSync(file, 'utf8')) as { revision?: unknown };
    return typeof revision === 'string' && /^[\w.-]{1,64}$/.test(revision) ? revision : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const REVISION: string = revisionOf();
