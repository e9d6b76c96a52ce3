// The parameters of acktrail's alert rules (prometheus/mixin/rules.yml), as monitoring mixins
// have them: what to select, what to keep apart, where runbooks live, how alerts are named.
// scripts/generate.ts fills the template with them.
import { parse, stringify } from 'yaml';
import { REPLICA_LABELS } from '../../dashboard/lib/replicas.js';

export interface Params {
  /** PromQL matchers of acktrail's series, e.g. `cluster="eu-1"`; empty: every series. */
  selector: string;
  /** Labels every alert keeps: two clusters (jobs, namespaces) with one queue name stay two. */
  groupLabels: string[];
  /** Labels that differ between replicas of one exporter, aggregated away with max. */
  replicaLabels: string[];
  /** `%s` is the runbook's slug (docs/runbooks/<slug>.md). */
  runbookURLPattern: string;
  /** Put before every alert name that does not start with it. */
  alertNamePrefix: string;
}

export const DEFAULTS: Params = {
  selector: '',
  groupLabels: ['cluster', 'namespace', 'job'],
  replicaLabels: REPLICA_LABELS,
  runbookURLPattern: 'https://github.com/acktrail/acktrail/blob/main/docs/runbooks/%s.md',
  alertNamePrefix: 'Acktrail',
};

const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Refuses parameters that would make invalid PromQL or lose the slug, naming the parameter. */
export function checkParams(p: Params): void {
  for (const [name, list] of [
    ['groupLabels', p.groupLabels],
    ['replicaLabels', p.replicaLabels],
  ] as const)
    for (const l of list)
      if (!LABEL.test(l)) throw new Error(`${name}: ${JSON.stringify(l)} is not a label name`);
  if (/[{}]/.test(p.selector))
    throw new Error('selector: matchers only, without braces (cluster="eu-1", job=~"acktrail.*")');
  if (!p.runbookURLPattern.includes('%s'))
    throw new Error("runbookURLPattern: needs %s where the runbook's slug goes");
  if (p.alertNamePrefix && !/^[A-Z][A-Za-z0-9]*$/.test(p.alertNamePrefix))
    throw new Error('alertNamePrefix: a word in UpperCamelCase, e.g. Acktrail');
}

interface Rule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** The rules file for these parameters, from the template's text. */
export function renderRules(template: string, p: Params): string {
  checkParams(p);
  const selector = p.selector.trim();
  const expr = (e: string) =>
    e
      .replaceAll('${groups}, ', p.groupLabels.map((l) => `${l}, `).join(''))
      .replaceAll('${groups}', p.groupLabels.join(', '))
      .replaceAll('${replicaLabels}', p.replicaLabels.join(', '))
      .replaceAll('${sel}', selector ? `{${selector}}` : '')
      .replaceAll('${matchers}', selector ? `${selector}, ` : '')
      .replaceAll('${exporterSel}', selector || 'job="acktrail"');
  const doc = parse(template) as { groups: { name: string; rules: Rule[] }[] };
  for (const group of doc.groups)
    group.rules = group.rules.map((rule) => {
      const { runbook, ...annotations } = rule.annotations ?? {};
      const name = rule.alert.startsWith(p.alertNamePrefix)
        ? rule.alert
        : `${p.alertNamePrefix}${rule.alert}`;
      const left = /\$\{\w+\}/.exec(expr(rule.expr));
      if (left) throw new Error(`${rule.alert}: unknown placeholder ${left[0]}`);
      return {
        ...rule,
        alert: name,
        expr: expr(rule.expr),
        annotations: {
          ...annotations,
          ...(runbook ? { runbook_url: p.runbookURLPattern.replace('%s', runbook) } : {}),
        },
      };
    });
  return stringify(doc, { lineWidth: 0 });
}
