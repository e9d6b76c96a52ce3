// One batch writer for the inputs that store what they take before they let go of it: Celery's
// event stream over AMQP and over Redis, and dead-letter parking. Items wait until `maxItems` of
// them (by weight) are there or `delayMs` after the first; up to `concurrency` writes run at once,
// each taking at most `maxItems`. After a write, `committed` runs (in the order batches were taken
// when `ordered`: an AMQP ack with `multiple` covers every earlier delivery). A failed write is,
// as `failed` decides, written again after backoff ('retry': nothing else can give the items back)
// or given up after backoff ('release': its source redelivers them). Once closed, nothing is
// retried and backoffs end; only `flush()` still writes what waits, once.
import { backoffMs, sleep } from '../backoff.js';

export type OnFailure = 'retry' | 'release';

export interface BatchWriterOptions<T, R> {
  /** Weight at which the waiting items are written at once; a batch takes at most this much. */
  maxItems: number;
  /** How long the first waiting item waits for others; 0: written as soon as a writer is free. */
  delayMs: number;
  /** Writes at once (1). */
  concurrency?: number;
  /** Hooks run in the order batches were taken, whichever write ends first (false). */
  ordered?: boolean;
  /** An item's weight (1): Celery counts steps, a message may carry none. */
  weight?: (item: T) => number;
  /** Weight held at most (waiting and being written): past it the oldest waiting are dropped. */
  maxHeld?: number;
  write(batch: T[]): Promise<R>;
  committed(batch: T[], result: R): void;
  /** A write failed (`failures` in a row): write the batch again, or release it. */
  failed(err: unknown, failures: number, batch: T[]): OnFailure;
  /** A released batch, after its backoff (at once when closed). */
  released?(batch: T[]): void;
  /** Waiting items dropped past maxHeld, or a retried batch given up when closed. */
  dropped?(items: T[]): void;
  /** A write succeeded after failures. */
  recovered?(): void;
  /** The wait after `failures` failed writes in a row. */
  backoffMs?(failures: number): number;
  /** Closes the writer when aborted (the exporter stops). */
  signal?: AbortSignal;
}

type Outcome<R> = { ok: true; result: R } | { ok: false; release: boolean };

export class BatchWriter<T, R = void> {
  private waiting: T[] = [];
  private waitingWeight = 0;
  private writingWeight = 0;
  private writers = 0;
  private due = false;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;
  private readonly stop = new AbortController();
  /** Hooks of earlier batches, when ordered. */
  private order: Promise<void> = Promise.resolve();
  /** Items added and items whose fate is decided (committed, released, dropped, cleared). */
  private added = 0;
  private settled = 0;
  private readonly flushes: { upTo: number; resolve: () => void }[] = [];
  private readonly weigh: (item: T) => number;

  constructor(private readonly o: BatchWriterOptions<T, R>) {
    this.weigh = o.weight ?? (() => 1);
    o.signal?.addEventListener('abort', () => {
      this.close();
    });
  }

  /** Weight waiting and being written. */
  get held(): number {
    return this.waitingWeight + this.writingWeight;
  }

  add(...items: T[]): void {
    for (const item of items) {
      this.waiting.push(item);
      this.waitingWeight += this.weigh(item);
    }
    this.added += items.length;
    this.bound();
    if (this.closed) return;
    if (this.waitingWeight >= this.o.maxItems || this.o.delayMs === 0) this.due = true;
    else if (this.waiting.length > 0)
      this.timer ??= setTimeout(() => {
        this.expire();
      }, this.o.delayMs);
    this.pump();
  }

  /** Writes what waits now; resolves once everything added so far is committed or given up. */
  flush(): Promise<void> {
    this.due = true;
    this.pump(true);
    return this.whenSettled(this.added);
  }

  /** Forgets what waits (its source is gone and redelivers it); writes under way go on. */
  clear(): void {
    this.settle(this.waiting.length);
    this.waiting = [];
    this.waitingWeight = 0;
    this.idle();
  }

  /** No more writes of its own accord, no retries, backoffs end; flush() still writes once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.idle();
    this.stop.abort();
  }

  private expire(): void {
    this.timer = null;
    this.due = true;
    this.pump();
  }

  private idle(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.due = false;
  }

  /** Drops the oldest waiting items while more than maxHeld is held. */
  private bound(): void {
    const max = this.o.maxHeld;
    if (max === undefined || this.held <= max) return;
    let n = 0;
    let w = 0;
    while (n < this.waiting.length && this.held - w > max) w += this.weigh(this.waiting[n++]!);
    const gone = this.waiting.splice(0, n);
    this.waitingWeight -= w;
    this.settle(gone.length);
    this.o.dropped?.(gone);
  }

  /** Starts writers while batches are due and writers are free. */
  private pump(force = false): void {
    if (this.closed && !force) return;
    const limit = this.o.concurrency ?? 1;
    while (this.due && this.writers < limit && this.waiting.length > 0) {
      const batch = this.take();
      this.writers++;
      const weight = batch.reduce((sum, item) => sum + this.weigh(item), 0);
      this.writingWeight += weight;
      const outcome = this.run(batch).finally(() => {
        this.writers--;
        this.writingWeight -= weight;
        this.pump(force && this.waiting.length > 0);
      });
      const done = (o: Outcome<R>) => {
        this.conclude(batch, o);
      };
      if (this.o.ordered) this.order = this.order.then(() => outcome.then(done));
      else void outcome.then(done);
    }
  }

  /** The oldest waiting items, at most maxItems by weight (one at least). */
  private take(): T[] {
    let n = 0;
    let w = 0;
    while (n < this.waiting.length) {
      const next = this.weigh(this.waiting[n]!);
      if (n > 0 && w + next > this.o.maxItems) break;
      w += next;
      n++;
    }
    const batch = this.waiting.splice(0, n);
    this.waitingWeight -= w;
    if (this.waiting.length === 0) this.idle();
    return batch;
  }

  /** Writes a batch until it is stored or released (retrying after backoff while told to). */
  private async run(batch: T[]): Promise<Outcome<R>> {
    for (;;) {
      try {
        const result = await this.o.write(batch);
        if (this.failures > 0) this.o.recovered?.();
        this.failures = 0;
        return { ok: true, result };
      } catch (err) {
        this.failures++;
        const release = this.o.failed(err, this.failures, batch) === 'release';
        if (!this.closed) {
          const wait = this.o.backoffMs?.(this.failures) ?? backoffMs(this.failures, 1000);
          await sleep(wait, this.stop.signal);
        }
        if (release || this.closed) return { ok: false, release };
      }
    }
  }

  /** Runs the batch's hook. Hooks catch their own errors (an ack on a channel that closed): one
   * that throws anyway is not let to stop the batches after it. */
  private conclude(batch: T[], o: Outcome<R>): void {
    try {
      if (o.ok) this.o.committed(batch, o.result);
      else if (o.release) this.o.released?.(batch);
      else this.o.dropped?.(batch);
    } catch {
      // see above
    } finally {
      this.settle(batch.length);
    }
  }

  private settle(n: number): void {
    this.settled += n;
    for (let i = this.flushes.length - 1; i >= 0; i--) {
      const f = this.flushes[i]!;
      if (this.settled < f.upTo) continue;
      this.flushes.splice(i, 1);
      f.resolve();
    }
  }

  private whenSettled(upTo: number): Promise<void> {
    if (this.settled >= upTo) return Promise.resolve();
    return new Promise((resolve) => this.flushes.push({ upTo, resolve }));
  }
}
