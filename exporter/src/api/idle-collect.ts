// Memory given back between scrapes. A scrape of thousands of queues leaves megabytes of strings
// in V8's large-object space and a young generation grown to its largest; V8 keeps both, and the
// pages it frees, until memory runs short. Once the exporter has answered a large scrape and none
// has come for a while, it collects as V8 does when memory runs short (its "last resort": the young
// generation shrunk, freed pages given back to the system), when the process runs with
// --expose-gc (the image and `npm run exporter` do). Not during a scrape: a collection then would
// hold that answer up (docs/benchmarks.md, "Memory given back between scrapes").

type Collect = NonNullable<typeof globalThis.gc>;

export class IdleCollector {
  private running = 0;
  private large = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly gc: Collect | undefined = globalThis.gc,
    private readonly idleMs = 1000,
  ) {}

  /** A scrape begins: no collection until it, and every other, is answered. */
  begin(): void {
    this.running++;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A scrape was answered; `large` when its exposition was. */
  end(large: boolean): void {
    this.running--;
    this.large ||= large;
    if (this.running > 0 || !this.large || !this.gc) return;
    const gc = this.gc;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.large = false;
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    }, this.idleMs);
    this.timer.unref();
  }
}
