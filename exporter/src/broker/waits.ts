// Bounded waits for something the refresher does (its first topology, a refresh begun after the
// wait began). Each wait ends at its bound, when its signal aborts or when the thing happens, and
// leaves nothing behind: a scrape's wait that outlived the scrape kept what the scrape read alive
// with it (at 10,000 queues, about 1.6 MB per scrape until its timer ran out), and a reaction on a
// promise that never settles (a broker away for days) would stay for good.

interface Wait {
  /** The refresh (its start's number) that ends this wait. */
  need: number;
  end: () => void;
}

export class Waits {
  private readonly open = new Set<Wait>();

  get size(): number {
    return this.open.size;
  }

  /** Waits at most `ms`, until `signal` aborts, or until endAll() or endUpTo(n >= need). */
  async wait(ms: number, signal?: AbortSignal, need = 0): Promise<void> {
    if (signal?.aborted) return;
    let end!: () => void;
    const given = new Promise<void>((resolve) => (end = resolve));
    const entry: Wait = { need, end };
    const timer = setTimeout(end, ms);
    signal?.addEventListener('abort', end, { once: true });
    this.open.add(entry);
    try {
      await given;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', end);
      this.open.delete(entry);
    }
  }

  endAll(): void {
    for (const w of this.open) w.end();
  }

  /** Ends the waits that the refresh numbered `n` answers. */
  endUpTo(n: number): void {
    for (const w of this.open) if (w.need <= n) w.end();
  }
}
