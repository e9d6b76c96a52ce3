// The overview's time range from its URL: a preset (?range=15m|1h|6h|24h) or a custom window
// (?from=...&to=..., UTC, as the datetime-local inputs send them). Also the query step and the
// rate window that go with it, as Grafana's $__interval and $__rate_interval would.
export const PRESETS = { '15m': 900, '1h': 3600, '6h': 21_600, '24h': 86_400 } as const;
export type Preset = keyof typeof PRESETS;
export const REFRESH = { off: 0, '10s': 10, '30s': 30, '1m': 60 } as const;
export type Refresh = keyof typeof REFRESH;

/** Prometheus scrapes acktrail every 10 s (prometheus/prometheus.yml). */
const SCRAPE_SECONDS = 10;
/** About this many points per series, whatever the range. */
const POINTS = 120;

export interface TimeRange {
  start: number;
  end: number;
  step: number;
  /** The [window] of rate() and friends: at least four scrapes, and never shorter than a step. */
  rateWindow: string;
  preset: Preset | null;
  refresh: Refresh;
  /** Set when the custom window could not be read; the default range is used instead. */
  error: string | null;
}

type Params = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function parseUtc(value: string): number | null {
  // datetime-local sends "2026-11-30T06:40" (no zone): read it as UTC, which the page labels.
  const t = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(t) ? null : Math.floor(t / 1000);
}

export function parseRange(params: Params, now = Date.now()): TimeRange {
  const nowS = Math.floor(now / 1000);
  const refreshParam = one(params.refresh);
  const refresh: Refresh =
    refreshParam && refreshParam in REFRESH ? (refreshParam as Refresh) : 'off';
  const from = one(params.from);
  const to = one(params.to);
  let error: string | null = null;
  if (from || to) {
    const start = from ? parseUtc(from) : null;
    const end = to ? parseUtc(to) : nowS;
    if (start === null) error = 'the custom range needs a valid "from" time';
    else if (end === null) error = 'the custom range has an invalid "to" time';
    else if (end <= start) error = '"from" must be before "to"';
    else return withStep(start, Math.min(end, nowS), null, refresh, null);
  }
  const presetParam = one(params.range);
  const preset: Preset = presetParam && presetParam in PRESETS ? (presetParam as Preset) : '1h';
  return withStep(nowS - PRESETS[preset], nowS, preset, refresh, error);
}

function withStep(
  start: number,
  end: number,
  preset: Preset | null,
  refresh: Refresh,
  error: string | null,
): TimeRange {
  const step = Math.max(SCRAPE_SECONDS, Math.ceil((end - start) / POINTS));
  // Aligned to the step, as Grafana does: the same range gives the same points at every refresh.
  // The end goes up to the next step, not down: a point at or after the range's end is what draws
  // the newest samples (a queue declared a few seconds ago is on the chart at once).
  start = Math.floor(start / step) * step;
  end = Math.max(start + step, Math.ceil(end / step) * step);
  const rateWindow = `${Math.max(4 * SCRAPE_SECONDS, step)}s`;
  return { start, end, step, rateWindow, preset, refresh, error };
}

/** "2026-11-30T06:40", the value a datetime-local input shows for a unix time, in UTC. */
export function toInputValue(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 16);
}
