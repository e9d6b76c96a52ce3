// The exporter's one memory bound (`memory.budgetBytes`, docs/security.md): the process's resident
// memory, V8's heaps of every thread, Buffers, the allocator's arenas and the broker's prefetched
// messages together, read as the kernel counts it (what a container's memory limit counts). Over
// the budget, every input stops taking more before it buffers anything: OTLP over HTTP answers
// 503 with Retry-After and over gRPC UNAVAILABLE (the gate's admission), the ingest thread is told,
// dead-letter parking and the Celery consumer over AMQP stop consuming (what they hold is
// finished and acked, nothing new arrives), and bodies being read are stopped (receiver/budget.ts).
// Under 90 % of it again, they take input again: the margin keeps them from flapping at the line.
// Each bound of its own (in-flight bytes, the write queue, the workers' heaps) still holds below
// the budget; this one holds whatever they miss.
//
// Resident memory is not only what the exporter holds: glibc keeps pages that were freed (small
// allocations in the middle of an arena cannot be trimmed; Node has no malloc_trim), so after a
// flood RSS can stay over the budget with the heaps nearly empty, and every input stayed refused
// for as long (9.6 minutes and counting, RSS 750 MB with a 25 MB heap, in the issue that found it).
// Those pages are what new allocations take first, so taking input again does not grow RSS until
// it has used them. So the budget is crossed only while what the exporter holds (each isolate's
// heap and external memory: the event loop's, the ingest thread's, the decoding workers') is at
// least half of it, and it ends when that falls below 45 % too.
import type { Worker } from 'node:worker_threads';
import { Gauge, type Registry } from 'prom-client';
import { gauge } from '../metrics/catalogue.js';

/** Back under the budget once resident memory is below this share of it. */
const RESUME_AT = 0.9;
/** Over the budget only while what the isolates hold is at least this share of it. */
const HELD_SHARE = 0.5;
const EVERY_MS = 200;
/**
 * While over, a collection is asked for again every this many checks (1 s): an exporter that
 * refuses every input allocates nothing, so V8 may not collect the garbage the refused bodies left
 * for many seconds, and what is held (the heaps' size) kept the budget crossed past its cause
 * (CI, 2026-12-06: a well-behaved sender still refused 10 s after a one-byte-chunk attack).
 */
const COLLECT_EVERY_CHECKS = 5;

/** Threads whose isolates' memory counts as held. */
export type Threads = () => readonly Pick<Worker, 'getHeapStatistics'>[];

/** The event loop's isolate: its heap and the memory outside it that it owns (Buffers). */
function heldHere(): number {
  const m = process.memoryUsage();
  return m.heapTotal + m.external;
}

export type MemoryListener = (over: boolean) => void;

export class MemoryBudget {
  private isOver = false;
  /** Checks since the last collection asked for while over. */
  private overChecks = 0;
  private readonly listeners = new Set<MemoryListener>();
  private timer: NodeJS.Timeout | undefined;
  private readonly overGauge: Gauge | null;
  private readonly threads = new Set<Threads>();
  /** What the threads held at their last reading (read in the background, one reading at a time). */
  private threadBytes = 0;
  private readingThreads = false;

  /**
   * @param read resident bytes of the process now (the kernel's count; a test gives its own)
   * @param collect asked once each time the budget is crossed: garbage V8 has not collected yet
   *   is the first thing to give back
   * @param held bytes the event loop's isolate holds now (heap and external; a test gives its own)
   */
  constructor(
    readonly budgetBytes: number,
    registry: Registry | null,
    private readonly read: () => number = () => process.memoryUsage.rss(),
    private readonly collect: (() => void) | undefined = globalThis.gc,
    private readonly held: () => number = heldHere,
  ) {
    if (registry) {
      new Gauge({ ...gauge('acktrail_memory_budget_bytes'), registers: [registry] }).set(
        budgetBytes,
      );
      this.overGauge = new Gauge({
        ...gauge('acktrail_memory_over_budget'),
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

  /** The memory of these threads' isolates counts as held from now on; returns how to stop. */
  countThreads(threads: Threads): () => void {
    this.threads.add(threads);
    return () => this.threads.delete(threads);
  }

  /**
   * Reads resident memory and what is held once, and tells the listeners when the budget was
   * crossed.
   */
  check(): void {
    const rss = this.read();
    const held = this.held() + this.threadBytes;
    this.readThreads();
    const over = this.isOver
      ? rss >= this.budgetBytes * RESUME_AT && held >= this.budgetBytes * HELD_SHARE * RESUME_AT
      : rss >= this.budgetBytes && held >= this.budgetBytes * HELD_SHARE;
    if (over === this.isOver) {
      if (over && ++this.overChecks % COLLECT_EVERY_CHECKS === 0) this.collect?.();
      return;
    }
    this.isOver = over;
    this.overChecks = 0;
    this.overGauge?.set(over ? 1 : 0);
    if (over) this.collect?.();
    for (const listener of this.listeners) listener(over);
  }

  /** The threads' heaps and external memory, for the next check. */
  private readThreads(): void {
    if (this.readingThreads || this.threads.size === 0) return;
    this.readingThreads = true;
    const workers = [...this.threads].flatMap((t) => t());
    void Promise.all(
      workers.map((w) =>
        w.getHeapStatistics().then(
          (h) => h.total_heap_size + h.external_memory,
          () => 0, // a thread that ended holds nothing
        ),
      ),
    ).then((bytes) => {
      this.threadBytes = bytes.reduce((a, b) => a + b, 0);
      this.readingThreads = false;
    });
  }
}
