// Runs the collectors for a scrape. A failing or slow collector never fails the scrape: it sets
// acktrail_collector_success{collector} to 0 and logs once per change of state. Concurrent scrapes
// share one in-flight collection; expensive collectors refresh in the background.
import { Gauge, type Registry } from 'prom-client';
import { errorMessage, type Logger } from '../../log.js';
import type { Collector } from './collector.js';
import type { Piece } from '../../exposition/encoding.js';
import type { ExpositionFormat } from '../../exposition/families.js';
import { DOCTOR } from '../../docs.js';
import { gauge } from '../../metrics/catalogue.js';

interface State {
  ok: boolean | null;
  lastSuccessAt: number | null;
  refreshing: Promise<void> | null;
  lastError: string | null;
  partial: string | null;
}

export interface SourceStatus {
  collector: string;
  up: boolean | null;
  error: string | null;
  /** Up, but part of the source did not answer (Collector.partialFailure). */
  partial: string | null;
  lastSuccessAt: string | null;
}

export class CollectorTimeoutError extends Error {
  readonly code = 'COLLECTOR_TIMEOUT';
}

export class CollectorRunner {
  private readonly states = new Map<string, State>();
  private inFlight: Promise<void> | null = null;
  private readonly success: Gauge;
  private readonly duration: Gauge;
  private readonly dataAge: Gauge;

  constructor(
    private readonly collectors: readonly Collector[],
    registry: Registry,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.success = new Gauge({ ...gauge('acktrail_collector_success'), registers: [registry] });
    this.duration = new Gauge({
      ...gauge('acktrail_collector_duration_seconds'),
      registers: [registry],
    });
    const states = this.states;
    const clock = this.now;
    this.dataAge = new Gauge({
      ...gauge('acktrail_collector_data_age_seconds'),
      registers: [registry],
      collect() {
        for (const [name, s] of states) {
          if (s.lastSuccessAt !== null)
            this.set({ collector: name }, (clock() - s.lastSuccessAt) / 1000);
        }
      },
    });
    for (const c of collectors) {
      this.states.set(c.name, {
        ok: null,
        lastSuccessAt: null,
        refreshing: null,
        lastError: null,
        partial: null,
      });
    }
  }

  /** One collection for however many scrapes arrive while it runs. */
  collect(): Promise<void> {
    this.inFlight ??= this.collectAll().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** The exposition of the collectors that write their own families (Collector.exposition). */
  exposition(format: ExpositionFormat): Piece[] {
    return this.collectors.flatMap((c) => c.exposition?.(format) ?? []);
  }

  status(): SourceStatus[] {
    return this.collectors.map((c) => {
      const s = this.states.get(c.name)!;
      return {
        collector: c.name,
        up: s.ok,
        error: s.lastError,
        partial: s.partial,
        lastSuccessAt: s.lastSuccessAt === null ? null : new Date(s.lastSuccessAt).toISOString(),
      };
    });
  }

  private async collectAll(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const c of this.collectors) {
      const s = this.states.get(c.name)!;
      if (c.minIntervalMs === undefined || s.lastSuccessAt === null) waits.push(this.refresh(c));
      else if (this.now() - s.lastSuccessAt >= c.minIntervalMs) void this.refresh(c); // background
    }
    await Promise.all(waits);
  }

  /** Runs a collector once, single-flight per collector. */
  private refresh(c: Collector): Promise<void> {
    const s = this.states.get(c.name)!;
    s.refreshing ??= this.run(c, s).finally(() => {
      s.refreshing = null;
    });
    return s.refreshing;
  }

  private async run(c: Collector, s: State): Promise<void> {
    const started = performance.now();
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new CollectorTimeoutError(`timed out after ${c.timeoutMs} ms`));
      }, c.timeoutMs);
    });
    try {
      const apply = await Promise.race([c.collect(abort.signal), timeout]);
      apply();
      s.lastSuccessAt = c.dataAt?.() ?? this.now();
      this.transition(c, s, true, null);
      this.partly(c, s, c.partialFailure?.() ?? null);
    } catch (err) {
      c.clear?.();
      this.transition(c, s, false, errorMessage(err));
      this.partly(c, s, null);
    } finally {
      clearTimeout(timer);
      this.duration.set({ collector: c.name }, (performance.now() - started) / 1000);
    }
  }

  /** Logs a partial failure once when it starts and once when it ends, not every scrape. */
  private partly(c: Collector, s: State, partial: string | null): void {
    if ((s.partial === null) === (partial === null)) {
      s.partial = partial;
      return;
    }
    if (partial !== null)
      this.log.warn({ collector: c.name, err: partial, fix: DOCTOR }, 'collector partly failing');
    else if (s.ok) this.log.info({ collector: c.name }, 'collector answered in full again');
    s.partial = partial;
  }

  private transition(c: Collector, s: State, ok: boolean, error: string | null): void {
    this.success.set({ collector: c.name }, ok ? 1 : 0);
    s.lastError = error;
    if (s.ok === ok) return;
    if (!ok) this.log.warn({ collector: c.name, err: error, fix: DOCTOR }, 'collector failing');
    else if (s.ok === false) this.log.info({ collector: c.name }, 'collector recovered');
    s.ok = ok;
  }
}
