// `acktrail doctor`: every configured source checked as `acktrail serve` will use it, side by
// side, one line each: `ok`, `warn` or `FAIL`, the source, what was found and, when not ok, the
// fix. Exit 1 when anything fails, 0 otherwise (warnings included).
import type { ValidatedConfig } from '../../config.js';
import {
  journeyStore,
  management,
  pipelineDatabase,
  prometheusEndpoints,
  type Finding,
} from './checks.js';
import { celery, deadLetters, listeners } from './more-checks.js';

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

/** Every check's findings, in the order of the data flow: broker, databases, Celery, ports. */
export async function diagnose(config: ValidatedConfig): Promise<Finding[]> {
  const broker = config.rabbitmq.enabled ? [management(config), prometheusEndpoints(config)] : [];
  const all = await Promise.all([
    ...broker,
    pipelineDatabase(config),
    journeyStore(config),
    celery(config),
    deadLetters(config),
    listeners(config),
  ]);
  return all.flat();
}

/** One line per finding. */
export function report(findings: Finding[]): string {
  return findings
    .map((f) => `${MARK[f.verdict]}  ${f.source}: ${f.said}${f.fix ? `\n      fix: ${f.fix}` : ''}`)
    .join('\n');
}
