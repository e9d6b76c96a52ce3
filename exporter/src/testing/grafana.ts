// The queries of the Grafana dashboards as code (grafana/dashboards/), with their variables filled
// in, for the tests that run them against a real Prometheus (or VictoriaMetrics).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@acktrail/orders-example/testing';

interface Panel {
  id: number;
  title: string;
  targets?: { expr: string }[];
}

/** The dashboards' file names. */
export const dashboardFiles = () =>
  readdirSync(join(REPO_ROOT, 'grafana/dashboards')).filter((f) => f.endsWith('.json'));

/**
 * Every panel query of the dashboards in `files`; `values` fills the variables (`job` and
 * `instance` match everything unless given, `$__rate_interval` is 1m).
 */
export function panelQueries(
  files: readonly string[],
  values: Record<string, string> = {},
): { where: string; query: string }[] {
  const all: Record<string, string> = {
    job: '.+',
    instance: '.+',
    __rate_interval: '1m',
    ...values,
  };
  return files.flatMap((file) => {
    const d = JSON.parse(readFileSync(join(REPO_ROOT, 'grafana/dashboards', file), 'utf8')) as {
      uid: string;
      panels: Panel[];
    };
    return d.panels.flatMap((panel) =>
      (panel.targets ?? []).map(({ expr }) => ({
        where: `${d.uid} panel ${panel.id} (${panel.title})`,
        query: expr.replace(/\$(\w+)/g, (_, name: string) => all[name] ?? `$${name}`),
      })),
    );
  });
}
