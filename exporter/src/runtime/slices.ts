// Long work on the event loop, in slices: a loop that may run long (a topology of many thousands
// of queues, bindings and policies) asks `due()` as it goes and, when its slice is used up, awaits
// `pause()`, which lets the loop answer /healthz, /metrics and ingest before going on. The work as
// a whole is bounded by the signal (the refresh's timeout): past it, pause() throws its reason.
import { setImmediate as yieldLoop } from 'node:timers/promises';

/** How long one slice may hold the event loop (ms). */
export const SLICE_MS = 10;

export class Slices {
  private since = performance.now();

  constructor(
    private readonly signal?: AbortSignal,
    private readonly sliceMs = SLICE_MS,
  ) {}

  /** Whether this slice is used up: the caller should await pause(). */
  due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  /** Gives the loop its turn; throws once the signal has aborted (the work's budget is spent). */
  async pause(): Promise<void> {
    this.signal?.throwIfAborted();
    await yieldLoop();
    this.signal?.throwIfAborted();
    this.since = performance.now();
  }
}
