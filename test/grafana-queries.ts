// The queries of the Grafana dashboards as code, with their variables filled in, for the tests
// that run them against a real Prometheus (or VictoriaMetrics): the committed dashboards
// (grafana/dashboards/, the default parameters) or the ones generated for other parameters.
import { dashboards } from '../scripts/generate.js';
import { DEFAULTS, type Params } from '../prometheus/mixin/params.js';

interface Panel {
  id: number;
  title: string;
  targets?: { expr: string }[];
}

interface Templating {
  list: { name: string; type: string; current?: { value?: unknown } }[];
}

/** The dashboards' file names. */
export const dashboardFiles = () => dashboards().map(([f]) => f);

/**
 * Every panel query of the dashboards in `files`, generated with `params`; `values` fills the
 * variables (the group labels, `job` and `instance` match everything unless given,
 * `$__rate_interval` is 1m, a textbox variable is its default).
 */
export function panelQueries(
  files: readonly string[],
  values: Record<string, string> = {},
  params: Params = DEFAULTS,
): { where: string; query: string }[] {
  const all: Record<string, string> = {
    ...Object.fromEntries(params.groupLabels.map((l) => [l, '.*'])),
    instance: '.*',
    __rate_interval: '1m',
    ...values,
  };
  return dashboards(params)
    .filter(([f]) => files.includes(f))
    .flatMap(([, json]) => {
      const d = JSON.parse(json) as { uid: string; panels: Panel[]; templating?: Templating };
      // A textbox variable (a value the user types, such as a status word) has its default.
      const typed = Object.fromEntries(
        (d.templating?.list ?? []).flatMap((v) =>
          v.type === 'textbox' && typeof v.current?.value === 'string'
            ? [[v.name, v.current.value]]
            : [],
        ),
      );
      const filled = { ...typed, ...all };
      return d.panels.flatMap((panel) =>
        (panel.targets ?? []).map(({ expr }) => ({
          where: `${d.uid} panel ${panel.id} (${panel.title})`,
          query: expr.replace(/\$(\w+)/g, (_, name: string) => filled[name] ?? `$${name}`),
        })),
      );
    });
}

/**
 * A query variable of a committed dashboard as Grafana runs it, `label_values(series, label)`,
 * with `values` filled in: as PromQL, the series counted by that label (same values as Grafana's
 * label values call for that series).
 */
export function variableQuery(file: string, name: string, values: Record<string, string>): string {
  const json = dashboards().find(([f]) => f === file)?.[1];
  if (!json) throw new Error(`no dashboard ${file}`);
  const d = JSON.parse(json) as { templating: { list: { name: string; definition?: string }[] } };
  const definition = d.templating.list.find((v) => v.name === name)?.definition ?? '';
  const m = /^label_values\((.+),\s*(\w+)\)$/s.exec(definition);
  if (!m) throw new Error(`${file}: ${name} is not a label_values variable`);
  const series = m[1]!.replace(/\$(\w+)/g, (_, v: string) => values[v] ?? `$${v}`);
  return `count by (${m[2]}) (${series})`;
}
