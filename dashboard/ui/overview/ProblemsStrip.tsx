// "Problems now": for each kind of problem, the expressions of its alert rules as Prometheus has
// them loaded, evaluated at this instant (so a problem shows before the rule's `for:` has run out),
// with the rule's own state beside it. Prometheus down: the banner, for the whole page.
import Link from 'next/link';
import { PROBLEMS } from '@/lib/charts/overview';
import { alertRules, query, type AlertRule } from '@/lib/data/prometheus';
import { DownBanner } from '@/ui/banner';

type Finding =
  | { kind: 'ok' }
  | { kind: 'problem'; where: string[]; state: AlertRule['state'] }
  | { kind: 'unknown'; message: string };

const STATE_RANK = { inactive: 0, pending: 1, firing: 2 } as const;
const PLACE_LABELS = ['queue', 'table', 'provider', 'exchange', 'collector'];
/** Places named in the strip; past them it says how many more (a broker may have thousands). */
const MAX_PLACES = 5;

async function evaluate(rules: AlertRule[], names: readonly string[]): Promise<Finding> {
  const mine = rules.filter((r) => names.includes(r.name));
  if (!mine.length) return { kind: 'unknown', message: `rule ${names.join(' / ')} not loaded` };
  const where = new Set<string>();
  let state: AlertRule['state'] = 'inactive';
  for (const rule of mine) {
    const now = await query(rule.query);
    if (now.kind !== 'ok') return { kind: 'unknown', message: now.message };
    for (const s of now.value) {
      const place = PLACE_LABELS.map((l) => s.labels[l]).filter(Boolean);
      where.add(place.length ? place.join(' / ') : rule.name);
    }
    if (now.value.length && STATE_RANK[rule.state] > STATE_RANK[state]) state = rule.state;
  }
  return where.size ? { kind: 'problem', where: [...where].sort(), state } : { kind: 'ok' };
}

export async function ProblemsStrip() {
  const rules = await alertRules();
  if (rules.kind !== 'ok')
    return (
      <>
        <DownBanner what="Prometheus" message={rules.message} />
        <p className="muted">Charts and problems need Prometheus (PROMETHEUS_URL).</p>
      </>
    );
  const findings = await Promise.all(PROBLEMS.map((p) => evaluate(rules.value, p.alerts)));
  return (
    <ul className="problems" aria-label="Problems now" data-testid="problems">
      {PROBLEMS.map((p, i) => {
        const f = findings[i]!;
        return (
          <li key={p.id} className="problem" data-problem={p.id} data-state={f.kind}>
            <strong>{p.title}</strong>{' '}
            {f.kind === 'ok' ? (
              <span>no</span>
            ) : f.kind === 'problem' ? (
              <span>
                yes: {f.where.slice(0, MAX_PLACES).join(', ')}
                {f.where.length > MAX_PLACES ? (
                  <>
                    {' '}
                    and {f.where.length - MAX_PLACES} more
                    {'list' in p ? (
                      <>
                        {' '}
                        (<Link href={p.list}>all {f.where.length}</Link>)
                      </>
                    ) : null}
                  </>
                ) : null}
                {f.state === 'inactive' ? null : <em> (alert {f.state})</em>}
              </span>
            ) : (
              <span className="muted">unknown: {f.message}</span>
            )}{' '}
            <Link href={p.journeys} className="journeys-link">
              journeys
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

export function ProblemsSkeleton() {
  return (
    <ul className="problems" aria-busy="true" aria-label="Problems now">
      {PROBLEMS.map((p) => (
        <li key={p.id} className="problem">
          <strong>{p.title}</strong> <span className="muted">checking…</span>
        </li>
      ))}
    </ul>
  );
}
