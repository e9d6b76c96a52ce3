// The exporter's one memory bound (`memory.budgetBytes`, docs/security.md): the process's resident
// memory, V8's heaps of every thread, Buffers, the allocator's arenas and the broker's prefetched
// messages together, read as the kernel counts it (what a container's memory limit counts). Over
// the budget, every input stops taking more before it buffers anything: OTLP over HTTP answers
// 503 with Retry-After and over gRPC UNAVAILABLE (the gate's admission), the ingest thread is told,
// dead-letter parking and the Celery consumer over AMQP stop consuming (what they hold is
// finished and acked, nothing new arrives). Under 90 % of it again, they take input again: the
// margin keeps them from flapping at the line. Each bound of its own (in-flight bytes, the write
// queue, the workers' heaps) still holds below the budget; this one holds whatever they miss.
import { Gauge, type Registry } from 'prom-client';

/** Back under the budget once resident memory is below this share of it. */
const RESUME_AT = 0.9;
const EVERY_MS = 200;

export type MemoryListener = (over: boolean) => void;

export class MemoryBudget {
  private isOver = false;
  private readonly listeners = new Set<MemoryListener>();
  private timer: NodeJS.Timeout | undefined;
  private readonly overGauge: Gauge | null;

  /**
   * @param read resident bytes of the process now (the kernel's count; a test gives its own)
   * @param collect asked once each time the budget is crossed: garbage V8 has not collected yet
   *   is the first thing to give back
   */
  constructor(
    readonly budgetBytes: number,
    registry: Registry | null,
    private readonly read: () => number = () => process.memoryUsage.rss(),
    private readonly collect: (() => void) | undefined = globalThis.gc,
  ) {
    if (registry) {
      new Gauge({
        name: 'acktrail_memory_budget_bytes',
        help: 'The memory the exporter keeps its resident set under (memory.budgetBytes): over it, inputs stop taking more.',
        registers: [registry],
      }).set(budgetBytes);
      this.overGauge = new Gauge({
        name: 'acktrail_memory_over_budget',
        help: '1 while the exporter is over its memory budget and refuses or pauses every input, else 0.',
        registers: [registry],
      });
      this.overGauge.set(0);
    } else this.overGauge = null;
  }

  /** Whether inputs must take nothing more now. */
  get over(): boolean {
    return this.isOver;
  }

  /** Told every time the budget is crossed, either way; returns how to stop being told. */
  onChange(listener: MemoryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads resident memory every 200 ms; never keeps the process alive. */
  start(): void {
    this.timer ??= setInterval(() => {
      this.check();
    }, EVERY_MS).unref();
    this.check();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads resident memory once and tells the listeners when the budget was crossed. */
  check(): void {
    const rss = this.read();
    const over = this.isOver ? rss >= this.budgetBytes * RESUME_AT : rss >= this.budgetBytes;
    if (over === this.isOver) return;
    this.isOver = over;
    this.overGauge?.set(over ? 1 : 0);
    if (over) this.collect?.();
    for (const listener of this.listeners) listener(over);
  }
}
