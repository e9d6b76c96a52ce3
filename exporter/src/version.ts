import { readFileSync } from 'node:fs';

/** The exporter's package version, for acktrail_build_info. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
