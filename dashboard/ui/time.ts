// acktrail's one way of writing a time on every page: UTC, "2026-12-07 13:22:14" (to the
// millisecond where steps are compared), the zone said once, in the header. A time the API did not
// give (a row no span has named) is a dash, never an invalid date thrown in a page.

/** `iso` as the pages show a time; '—' when there is none or it is not a time. */
export function at(iso: string | null | undefined, ms = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d
    .toISOString()
    .slice(0, ms ? 23 : 19)
    .replace('T', ' ');
}

/** A time of day only (a step within one journey): "13:22:14.661". */
export function clock(iso: string | null | undefined): string {
  const t = at(iso, true);
  return t === '—' ? t : t.slice(11);
}
