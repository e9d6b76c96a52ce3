// The parameters of acktrail's alert rules (prometheus/mixin/rules.yml), as monitoring mixins
// have them: what to select, what to keep apart, where runbooks live, how alerts are named.
// scripts/generate.ts fills the template with them.
import { parse, stringify } from 'yaml';
import { REPLICA_LABELS } from '../../dashboard/lib/data/replicas.js';

export interface Params {
  /** PromQL matchers of acktrail's series, e.g. `cluster="eu-1"`; empty: every series. */
  selector: string;
  /**
   * PromQL matchers of acktrail's scrape targets, for `up` (AcktrailExporterDown, ExporterAbsent),
   * joined with `selector`: `up{cluster="eu-1"}` alone is every target of that cluster.
   */
  exporterSelector: string;
  /** Labels every alert keeps: two clusters (jobs, namespaces) with one queue name stay two. */
  groupLabels: string[];
  /** Labels that differ between replicas of one exporter, aggregated away with max. */
  replicaLabels: string[];
  /** `%s` is the runbook's slug (docs/runbooks/<slug>.md). */
  runbookURLPattern: string;
  /** Put before every alert name that does not start with it. */
  alertNamePrefix: string;
  /** Each alert's threshold, and the confirmation SLO (`--param name=value`). */
  thresholds: Thresholds;
}

/** The numbers the rules compare with; docs/alerts.md says which alert reads which. */
export const THRESHOLDS = {
  /** AcktrailOutboxStuck: oldest unpublished row, seconds. */
  outboxStuckSeconds: 60,
  /** AcktrailOutboxBacklogGrowing: unpublished rows. */
  outboxBacklog: 100,
  /** AcktrailQueueBacklogGrowing: ready messages of a work queue. */
  queueBacklog: 1000,
  /** AcktrailQueueHeadOld: the head's wait, seconds. */
  queueHeadAgeSeconds: 300,
  /** AcktrailUnackedHigh: unacked deliveries of a queue. */
  unackedHigh: 500,
  /** AcktrailDeadLettersParkedTooLong: the oldest parked dead letter, seconds. */
  deadLetterParkedSeconds: 86_400,
  /** AcktrailRedeliveryRateHigh: redeliveries over deliveries. */
  redeliveryRatio: 0.1,
  /** AcktrailMessagesDiscarded, critical: messages discarded on a queue in 10 min (any: warning). */
  discardedCritical: 10,
  /** AcktrailUnroutablePublishes, critical: returns of a key in 5 min (any: warning). */
  unroutableCritical: 10,
  /** AcktrailProviderErrorRatioHigh: failed calls over calls. */
  providerErrorRatio: 0.2,
  /** AcktrailConfirmationLatencySLOBurn: the latency a confirmation must beat (a bucket's `le`). */
  sloLatencySeconds: 30,
  /** AcktrailConfirmationLatencySLOBurn: the share of confirmations that must beat it. */
  sloObjective: 0.99,
  /** AcktrailCeleryTaskFailureRatioHigh: failed runs over ended runs. */
  celeryFailureRatio: 0.2,
  /** AcktrailCeleryQueueWaitHigh: p95 wait before a task starts, seconds. */
  celeryQueueWaitSeconds: 60,
  /** AcktrailCeleryQueueGrowing: tasks waiting in a queue. */
  celeryQueueLength: 1000,
  /** AcktrailCeleryEventsQuiet: seconds without a Celery event. */
  celeryEventsQuietSeconds: 300,
  /** AcktrailCeleryVisibilityTimeoutNear: unacked age over the visibility timeout. */
  celeryVisibilityShare: 0.8,
  /** AcktrailJourneyWritesSlow: p90 of the journey store's writes, seconds. */
  journeyWriteSeconds: 1,
};
export type Thresholds = typeof THRESHOLDS;

/** Ratios lie in (0, 1); everything else is a positive number. */
const RATIOS = new Set<keyof Thresholds>([
  'redeliveryRatio',
  'providerErrorRatio',
  'sloObjective',
  'celeryFailureRatio',
  'celeryVisibilityShare',
]);

/**
 * `name=value` pairs (`--param`) over the defaults; an unknown name or a value out of its range is
 * an error that names it.
 */
export function parseThresholds(pairs: readonly string[]): Thresholds {
  const out = { ...THRESHOLDS };
  for (const pair of pairs) {
    const [name = '', value = ''] = pair.split('=', 2);
    if (!(name in THRESHOLDS))
      throw new Error(`--param ${name}: unknown; one of ${Object.keys(THRESHOLDS).join(', ')}`);
    const key = name as keyof Thresholds;
    const n = Number(value);
    const ok = RATIOS.has(key) ? n > 0 && n < 1 : Number.isFinite(n) && n > 0;
    if (value === '' || !ok)
      throw new Error(
        `--param ${name}: ${JSON.stringify(value)} is not ${RATIOS.has(key) ? 'a ratio between 0 and 1' : 'a positive number'}`,
      );
    out[key] = n;
  }
  return out;
}

/** A number as PromQL and the summaries write it: no float noise (1 - 0.99 is 0.01). */
const num = (n: number) => String(Number(n.toPrecision(12)));

/**
 * A bucket's `le` as a PromQL regex (inside a PromQL string) that matches how both Prometheus
 * versions store it: 2.x writes a whole number as `30`, 3.x as `30.0` (it normalises classic
 * histograms' `le` to floats); other numbers are the same in both.
 */
export const leRegex = (n: number) => {
  const s = num(n);
  return Number.isInteger(n) ? `${s}(\\\\.0)?` : s.replaceAll('.', '\\\\.');
};

/**
 * Fills `${t.name}` (the number), `${t.name%}` (as a percentage), `${t.name:le}` (a regex for a
 * bucket's `le` of that value on Prometheus 2 and 3: `le=~"${t.sloLatencySeconds:le}"`) and
 * `${t.sloErrorBudget}`; in a JSON source (`json`), `"${t.name}"` (a string, so that the source
 * stays JSON) becomes the bare number. PromQL's own quotes are kept in the rules.
 */
export function fillThresholds(text: string, t: Thresholds, json = false): string {
  const value = (whole: string, name: string, form: string) => {
    const v = name === 'sloErrorBudget' ? 1 - t.sloObjective : (t as Record<string, number>)[name];
    if (v === undefined) throw new Error(`unknown threshold ${whole}`);
    if (form === ':le') return leRegex(v);
    return num(form === '%' ? v * 100 : v);
  };
  const bare = json
    ? text.replace(/"\$\{t\.(\w+)\}"/g, (whole, name: string) => value(whole, name, ''))
    : text;
  return bare.replace(/\$\{t\.(\w+)(%|:le)?\}/g, (whole, name: string, form?: string) =>
    value(whole, name, form ?? ''),
  );
}

export const DEFAULTS: Params = {
  selector: '',
  exporterSelector: 'job="acktrail"',
  groupLabels: ['cluster', 'namespace', 'job'],
  replicaLabels: REPLICA_LABELS,
  runbookURLPattern: 'https://github.com/acktrail/acktrail/blob/main/docs/runbooks/%s.md',
  alertNamePrefix: 'Acktrail',
  thresholds: THRESHOLDS,
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
  if (/[{}]/.test(p.exporterSelector) || !p.exporterSelector.trim())
    throw new Error(
      'exporterSelector: matchers of the exporter\'s targets, without braces (job="acktrail")',
    );
  if (!p.runbookURLPattern.includes('%s'))
    throw new Error("runbookURLPattern: needs %s where the runbook's slug goes");
  if (p.alertNamePrefix && !/^[A-Z][A-Za-z0-9]*$/.test(p.alertNamePrefix))
    throw new Error('alertNamePrefix: a word in UpperCamelCase, e.g. Acktrail');
}

interface Rule {
  /** An alert's name; a recording rule has `record` instead. */
  alert?: string;
  record?: string;
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
      .replaceAll(
        '${exporterSel}',
        [selector, p.exporterSelector.trim()].filter(Boolean).join(', '),
      );
  const doc = parse(fillThresholds(template, p.thresholds)) as {
    groups: { name: string; rules: Rule[] }[];
  };
  for (const group of doc.groups)
    group.rules = group.rules.map((rule) => {
      const left = /\$\{\w+\}/.exec(expr(rule.expr));
      if (left) throw new Error(`${rule.alert ?? rule.record}: unknown placeholder ${left[0]}`);
      if (rule.alert === undefined) return { ...rule, expr: expr(rule.expr) };
      const { runbook, ...annotations } = rule.annotations ?? {};
      const name = rule.alert.startsWith(p.alertNamePrefix)
        ? rule.alert
        : `${p.alertNamePrefix}${rule.alert}`;
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
