// The one interface every collector implements.
import type { Piece } from '../../exposition/encoding.js';
import type { ExpositionFormat } from '../../exposition/families.js';

export interface Collector {
  /** The `collector` label of the self-monitoring metrics. */
  readonly name: string;
  /** A run that takes longer is abandoned and counts as a failure. */
  readonly timeoutMs: number;
  /**
   * Expensive collectors refresh at most this often, in the background: scrapes serve the last
   * data (and its age) instead of waiting. Unset: every scrape runs the collector.
   */
  readonly minIntervalMs?: number;
  /**
   * Reads the source and returns a function that applies the new values to the collector's
   * metrics. The runner calls it only when the run finished in time, so a late result never
   * overwrites a newer one and a timed-out run leaves no half-written state.
   */
  collect(signal: AbortSignal): Promise<() => void>;
  /**
   * When the data it serves was read from its source (ms since the epoch), where that is not when
   * it ran: a collector that serves another part's answer (rabbitmq_stats, the topology's refresh).
   * Its data age and last success are that time.
   */
  dataAt?(): number | null;
  /** Called when a run fails: remove values that would now be stale (gauges), keep counters. */
  clear?(): void;
  /**
   * After a run that succeeded: what part of the source did not answer (one node of a cluster),
   * or null. The run's data is served; /readyz and the log say what is missing.
   */
  partialFailure?(): string | null;
  /**
   * For a collector that writes its own families (one series per queue: exposition/families.ts)
   * instead of registering them with prom-client: their exposition in the format asked for. It
   * changes only when the collector runs, so the collector caches it between runs.
   */
  exposition?(format: ExpositionFormat): Piece[];
}
