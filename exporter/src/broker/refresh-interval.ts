// How long the stats refresh (every queue listed from the management API) waits before the next.

/** At most this share of the time is spent refreshing: the wait is 100 times the last refresh. */
export const BUSY_FACTOR = 100;
/**
 * However long a refresh took, the next comes within this many configured intervals. A refresh
 * timed while the exporter or the broker is starved of CPU (a busy host, a cluster node starting)
 * takes long for reasons that pass; without the cap one 2 s refresh meant no fresh queue
 * arguments, head timestamps or STOP status for 200 s.
 */
export const MAX_STRETCH = 10;

/** The wait (ms) before the next refresh, given the configured interval and the last refresh's. */
export function refreshIntervalMs(configuredMs: number, lastRunMs: number): number {
  return Math.max(configuredMs, Math.min(BUSY_FACTOR * lastRunMs, MAX_STRETCH * configuredMs));
}
