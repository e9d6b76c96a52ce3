// Incremental reading of rows newer than a watermark, for counters and histograms fed from
// tables (confirmations, provider attempts, published outbox rows).
//
// The choice: counts start when the exporter starts, as any process-local Prometheus counter
// does; rate() and increase() treat a restart as a counter reset, so nothing is counted twice
// across restarts. Each run re-reads `lateness` behind the watermark, because a row's timestamp
// is taken when its transaction began and it may become visible after newer rows; ids seen inside
// that window are remembered so that each row is counted once.

export interface TimedRow {
  id: string;
  at: Date;
}

export class WatermarkCursor {
  private watermark: number | null = null;
  private readonly seen = new Map<string, number>();

  constructor(private readonly latenessMs: number) {}

  get initialised(): boolean {
    return this.watermark !== null;
  }

  /** Lower bound for the next query: rows with `at` after this are read. */
  since(): Date {
    if (this.watermark === null) throw new Error('cursor not initialised');
    return new Date(this.watermark - this.latenessMs);
  }

  /** The lower bound a first run at `now` reads from. */
  sinceFor(now: Date): Date {
    return new Date(now.getTime() - this.latenessMs);
  }

  /** First run: rows already in the window existed before the start; remember them, count none. */
  initialise(dbNow: Date, existing: readonly TimedRow[]): void {
    this.watermark = dbNow.getTime();
    for (const r of existing) this.seen.set(r.id, r.at.getTime());
  }

  /** Returns the rows not counted before and advances the watermark. */
  accept<R extends TimedRow>(rows: readonly R[]): R[] {
    if (this.watermark === null) throw new Error('cursor not initialised');
    const fresh = rows.filter((r) => !this.seen.has(r.id));
    for (const r of fresh) {
      const at = r.at.getTime();
      this.seen.set(r.id, at);
      if (at > this.watermark) this.watermark = at;
    }
    const horizon = this.watermark - this.latenessMs;
    for (const [id, at] of this.seen) if (at < horizon) this.seen.delete(id);
    return fresh;
  }
}

/** Keeps a label's values bounded: beyond `max` distinct values, new ones become "other". */
export class BoundedLabel {
  private readonly values = new Set<string>();

  constructor(private readonly max: number) {}

  of(value: string | null | undefined): string {
    const v = value ?? 'unknown';
    if (this.values.has(v)) return v;
    if (this.values.size >= this.max) return 'other';
    this.values.add(v);
    return v;
  }
}
