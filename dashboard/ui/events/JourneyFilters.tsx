// The journeys list's filters: a plain GET form (it works before hydration, and every search is a
// link), each value as the URL holds it, checked by the API (which names a wrong one). The
// choices are the API's, from the contract of names (@acktrail/conventions).
import { SDK_PROFILES, STEP_ANOMALIES, VERDICT_CLASSES } from '@acktrail/conventions';

type Param = string | string[] | undefined;

interface Filter {
  key: string;
  label: string;
  /** A choice of values; none: free text. */
  choices?: readonly string[];
  placeholder?: string;
}

export const FILTERS: readonly Filter[] = [
  { key: 'since', label: 'since', choices: ['15m', '1h', '6h', '24h', '7d'] },
  { key: 'until', label: 'until', placeholder: 'now, or an ISO time' },
  {
    key: 'verdict',
    label: 'verdict',
    choices: VERDICT_CLASSES,
  },
  {
    key: 'anomaly',
    label: 'anomaly',
    choices: STEP_ANOMALIES,
  },
  { key: 'queue', label: 'queue' },
  { key: 'service', label: 'service' },
  { key: 'stage', label: 'stage', placeholder: 'deliver, publish, settle…' },
  {
    key: 'sdk',
    label: 'instrumentation',
    choices: SDK_PROFILES,
  },
  { key: 'reason_group', label: 'dead-letter reason' },
  { key: 'task', label: 'Celery task' },
  {
    key: 'task_state',
    label: 'task state',
    choices: [
      'sent',
      'received',
      'started',
      'succeeded',
      'failed',
      'retried',
      'revoked',
      'rejected',
    ],
  },
];

const KEYS = new Set([...FILTERS.map((f) => f.key), 'cursor']);

/** The filters the URL holds (one value each, bounded); the rest of the URL is ignored. */
export function filtersOf(params: Record<string, Param>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (KEYS.has(k) && value) out[k] = value.slice(0, 400);
  }
  if (!out.since) out.since = '1h';
  return out;
}

export function JourneyFilters({ values }: { values: Record<string, string> }) {
  return (
    <form className="filters" method="get" action="/events" aria-label="Journey filters">
      {FILTERS.map((f) => (
        <label key={f.key}>
          {f.label}{' '}
          {f.choices ? (
            <select name={f.key} defaultValue={values[f.key] ?? ''}>
              {f.key === 'since' ? null : <option value="">any</option>}
              {[
                ...f.choices,
                ...(values[f.key] && !f.choices.includes(values[f.key]!) ? [values[f.key]!] : []),
              ].map((c) => (
                <option key={c} value={c}>
                  {c.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          ) : (
            <input
              name={f.key}
              defaultValue={values[f.key] ?? ''}
              placeholder={f.placeholder ?? 'any'}
              maxLength={255}
            />
          )}
        </label>
      ))}
      <button type="submit">Find</button>
    </form>
  );
}
