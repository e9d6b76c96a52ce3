// Incremental reading of rows newer than a watermark, for counters and histograms fed from
// tables (confirmations, provider attempts, published outbox rows).
//
// The choice: counts start when the exporter starts, as any process-local Prometheus counter
// does; rate() and increase() treat a restart as a counter reset, so nothing is counted twice
// across restarts. Each run re-reads `lateness` behind the watermark, because a row's timestamp
// is taken when its transaction began and it may become visible after newer rows; ids seen inside
// that window are remembered so that each row is counted once.
//
// Rows are read in pages ordered by (at, id) and continued from the last (at, id) read, never
// from a timestamp alone: a bulk update that stamps 100,000 rows with one time is paged through
// like any other rows, so the watermark cannot stall behind a page full of equal timestamps.

export interface TimedRow {
  id: string;
  at: Date;
}

/** A position in (at, id) order. `at` is PostgreSQL's own text of the time: exact to the µs. */
export interface Keyset {
  at: string;
  id: string;
}

export class WatermarkCursor {
  private watermark: number | null = null;
  /** Set when the first run could not list the window: rows at or before it never count. */
  private floor: { ms: number; at: string } | null = null;
  /** Where an unfinished run stopped; the next run goes on from there. */
  private resume: Keyset | null = null;
  private readonly seen = new Map<string, number>();

  constructor(private readonly latenessMs: number) {}

  get initialised(): boolean {
    return this.watermark !== null;
  }

  /** Where the next run starts reading. */
  start(): Keyset {
    if (this.watermark === null) throw new Error('cursor not initialised');
    if (this.resume) return this.resume;
    return this.windowStart(this.watermark);
  }

  /** Where the first run, at the database's time `nowMs`, starts reading. */
  windowStart(nowMs: number): Keyset {
    const from = nowMs - this.latenessMs;
    if (this.floor && this.floor.ms >= from) return { at: this.floor.at, id: '' };
    return { at: new Date(from).toISOString(), id: '' };
  }

  /**
   * First run: rows already in the window existed before the start; remember them, count none.
   * When the window held more rows than a run reads (`complete` false), nothing stamped before
   * the start is ever counted instead: a floor at the database's time of the start.
   */
  initialise(now: { ms: number; at: string }, existing: readonly TimedRow[], complete: boolean) {
    this.watermark = now.ms;
    if (!complete) {
      this.floor = now;
      return;
    }
    for (const r of existing) this.seen.set(r.id, r.at.getTime());
  }

  /**
   * Returns the rows not counted before and advances the watermark. `stoppedAt`: the run read as
   * many pages as it may and stopped there; the next run continues from it.
   */
  accept<R extends TimedRow>(rows: readonly R[], stoppedAt: Keyset | null): R[] {
    if (this.watermark === null) throw new Error('cursor not initialised');
    const floor = this.floor?.ms ?? -Infinity;
    const fresh = rows.filter((r) => !this.seen.has(r.id) && r.at.getTime() > floor);
    for (const r of fresh) {
      const at = r.at.getTime();
      this.seen.set(r.id, at);
      if (at > this.watermark) this.watermark = at;
    }
    this.resume = stoppedAt;
    const horizon = this.watermark - this.latenessMs;
    for (const [id, at] of this.seen) if (at < horizon) this.seen.delete(id);
    return fresh;
  }
}
