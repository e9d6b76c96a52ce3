// The in-flight budget: bytes of request bodies held at once, shared by every request of one
// receiver (both transports), charged for what is held (pieces.ts). Over the exporter's memory
// budget (runtime/memory.ts) it takes nothing and stops the bodies being read, not only new ones:
// a body that had begun before the crossing would otherwise go on growing past it.

/** Why a body being read was stopped: the budget is full, or the exporter over its memory. */
export type BudgetRefusal = 'over_budget' | 'over_memory';

export class ByteBudget {
  private used = 0;
  private overMemory = false;
  /** What stops each body being read now. */
  private readonly readers = new Set<() => void>();

  /** @param onChange told the bytes in use after every change (a gauge). */
  constructor(
    readonly max: number,
    private readonly onChange: (inUse: number) => void = () => undefined,
  ) {}

  get inUse(): number {
    return this.used;
  }

  /** Why nothing would be taken now, for a refusal's words: over_memory wins. */
  get refusal(): BudgetRefusal {
    return this.overMemory ? 'over_memory' : 'over_budget';
  }

  /** Takes `n` bytes if they fit and the exporter is under its memory budget; else nothing. */
  tryTake(n: number): boolean {
    if (this.overMemory || this.used + n > this.max) return false;
    this.used += n;
    this.onChange(this.used);
    return true;
  }

  release(n: number): void {
    this.used = Math.max(0, this.used - n);
    this.onChange(this.used);
  }

  /**
   * The exporter's memory budget crossed: over it, nothing is taken and every body being read is
   * stopped (each reader's `stop`); under it again, bodies are taken again.
   */
  setOverMemory(over: boolean): void {
    this.overMemory = over;
    if (over) for (const stop of [...this.readers]) stop();
  }

  /** A body being read: `stop` is called if the memory budget is crossed meanwhile. */
  reading(stop: () => void): () => void {
    this.readers.add(stop);
    return () => this.readers.delete(stop);
  }

  /** The words of a refusal by this budget, for the client. */
  describe(why: BudgetRefusal): string {
    return why === 'over_memory'
      ? 'the exporter is over its memory budget; retry later'
      : `the receiver holds its in-flight budget (${this.max} bytes of request bodies); retry later`;
  }
}
