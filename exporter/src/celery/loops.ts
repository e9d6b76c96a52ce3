// A Celery transport's background loops (the queue lengths, the subscriber lease, asking the
// workers for events). stop() waits for the runs under way, so that none acts (takes a lease,
// subscribes, writes) after its transport has stopped and let go of its connections.

export class Loops {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  /** Runs every `ms`; a tick that finds the last run still under way is skipped. */
  every(ms: number, run: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.launch(run).finally(() => (busy = false));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Runs once now, as one of the loops: stop() waits for it too. */
  now(run: () => Promise<void>): void {
    void this.launch(run);
  }

  /** No run starts after this; the promise settles when the runs under way have. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    return Promise.all(this.running).then(() => undefined);
  }

  private launch(run: () => Promise<void>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // A run reports its own failures; here only its end counts.
    const settled = run().catch(() => undefined);
    this.running.add(settled);
    return settled.finally(() => this.running.delete(settled));
  }
}
