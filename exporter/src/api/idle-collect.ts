// Memory given back after large scrapes. A scrape of thousands of queues leaves megabytes of
// strings in V8's large-object space, which V8 keeps until a full collection that it puts off
// while memory grows. Once no scrape has come for a while, the exporter collects as V8 does when
// memory runs short (its "last resort": every collection, the young generation shrunk, freed
// pages given back to the system). Not during a scrape: it would hold that answer up. When large
// scrapes come too close together for that (several scrapers, or a bench), the exporter also
// collects right after answering one (a plain full collection), unless the last resort ran since
// the one before: at Prometheus' interval each scrape is followed by one collection, not two.
// Both need --expose-gc (the image and `npm run exporter` run with it; docs/benchmarks-history.md,
// "Memory given back between scrapes").

type Collect = NonNullable<typeof globalThis.gc>;

export class IdleCollector {
  private running = 0;
  private large = false;
  /** Whether the last resort has run since the last large scrape was answered. */
  private rested = true;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly gc: Collect | undefined = globalThis.gc,
    private readonly idleMs = 1000,
  ) {}

  /** A scrape begins: no last-resort collection until it, and every other, is answered. */
  begin(): void {
    this.running++;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A scrape was answered; `large` when its exposition was. */
  end(large: boolean): void {
    this.running--;
    this.large ||= large;
    const gc = this.gc;
    if (!gc) return;
    if (large) {
      if (!this.rested)
        setImmediate(() => {
          gc();
        });
      this.rested = false;
    }
    if (this.running > 0 || !this.large) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.large = false;
      this.rested = true;
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    }, this.idleMs);
    this.timer.unref();
  }
}
