// `acktrail doctor`: every configured source checked as `acktrail serve` will use it, side by
// side, one line each: `ok`, `warn` or `FAIL`, the source, what was found and, when not ok, the
// fix. Exit 1 when anything fails, 0 otherwise (warnings included). No check can hold it: one
// that has not ended within CHECK_MS is a FAIL of its own, and the command exits after the report.
import type { ValidatedConfig } from '../../config.js';
import { journeyStore, management, pipelineDatabase, prometheusEndpoints } from './checks.js';
import { TIMEOUT_MS, bad, where, type Finding } from './finding.js';
import { celery, deadLetters, hosts, listeners } from './more-checks.js';
import { printable } from '../print.js';

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

/**
 * A whole check's bound: each of its steps is bounded by TIMEOUT_MS, and a check of several steps
 * (the management API reads each vhost) ends within this however a library retries or waits.
 */
export const CHECK_MS = 3 * TIMEOUT_MS;

/** A check's findings, or one FAIL naming the source when it has not ended within CHECK_MS. */
async function bounded(source: string, check: () => Promise<Finding[]>): Promise<Finding[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Finding[]>((resolve) => {
    timer = setTimeout(() => {
      resolve([
        bad(
          'fail',
          source,
          `no answer within ${CHECK_MS / 1000} s`,
          'check that the host and port are right and that the service answers there',
        ),
      ]);
    }, CHECK_MS);
  });
  try {
    return await Promise.race([check(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every check's findings, in the order of the data flow: broker, databases, Celery, ports. */
export async function diagnose(config: ValidatedConfig): Promise<Finding[]> {
  type Check = [source: string, run: () => Promise<Finding[]>];
  const broker: Check[] = [
    [`management API ${where(config.managementUrl)}`, () => management(config)],
    ['rabbitmq_prometheus', () => prometheusEndpoints(config)],
  ];
  const checks: Check[] = [
    ...(config.rabbitmq.enabled ? broker : []),
    ['pipeline database', () => pipelineDatabase(config)],
    ['journey store', () => journeyStore(config)],
    [`Celery broker ${hosts(config.celery.url)}`, () => celery(config)],
    ['dead-letter parking', () => deadLetters(config)],
    ['listeners', () => listeners(config)],
  ];
  const all = await Promise.all(checks.map(([source, check]) => bounded(source, check)));
  return all.flat();
}

/**
 * One line per finding (and its fix). What a finding says may hold text from outside (a channel
 * name, a server's error): each part is one printable line, so none can forge another.
 */
export function report(findings: Finding[]): string {
  const line = (text: string) => printable(text, true);
  return findings
    .map(
      (f) =>
        `${MARK[f.verdict]}  ${line(f.source)}: ${line(f.said)}${f.fix ? `\n      fix: ${line(f.fix)}` : ''}`,
    )
    .join('\n');
}
