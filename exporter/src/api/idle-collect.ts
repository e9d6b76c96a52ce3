// Memory given back after large scrapes. A scrape of thousands of queues leaves megabytes of
// strings in V8's large-object space, which V8 keeps until a full collection that it puts off
// while memory grows: right after answering a large scrape the exporter collects (a plain full
// collection). V8 still keeps the young generation at the size the scrape grew it to, and the
// pages it freed, until memory runs short: once no scrape has come for a while, the exporter
// collects as V8 does when memory runs short (its "last resort": the young generation shrunk,
// freed pages given back to the system). Not during a scrape: it would hold that answer up. Both
// need --expose-gc (the image and `npm run exporter` run with it; docs/benchmarks.md, "Memory
// given back between scrapes").

type Collect = NonNullable<typeof globalThis.gc>;

export class IdleCollector {
  private running = 0;
  private large = false;
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
    if (large)
      setImmediate(() => {
        gc();
      });
    if (this.running > 0 || !this.large) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.large = false;
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    }, this.idleMs);
    this.timer.unref();
  }
}
