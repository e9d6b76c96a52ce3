// How long a request body has sent nothing, told in a way an event-loop stall cannot fool: when
// the timer fires after the loop was busy, the bytes that arrived meanwhile have not been read
// yet. The check waits for setImmediate, which runs after this turn's poll phase has read them,
// and only then compares the time since the last byte with the bound. Bytes that never reach
// JavaScript (a refused body thrown away by the HTTP parser itself, discard.ts) are told by a count
// the watch reads itself (`progress`, such as the socket's bytesRead), a quarter of the bound
// apart: such a body is dropped between 1 and 1.25 times the bound after its last byte.
export class IdleWatch {
  private last = performance.now();
  private timer: NodeJS.Timeout;
  private stopped = false;
  private seen: number;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => void,
    private readonly progress?: () => number,
  ) {
    this.seen = progress?.() ?? 0;
    this.timer = setTimeout(this.check, this.next(idleMs));
  }

  /** Bytes arrived. */
  touch(): void {
    this.last = performance.now();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The wait before the next check, when `remaining` ms of the bound are left. */
  private next(remaining: number): number {
    return this.progress ? Math.min(remaining, this.idleMs / 4) : remaining;
  }

  private readonly check = (): void => {
    setImmediate(() => {
      if (this.stopped) return;
      const now = performance.now();
      const count = this.progress?.() ?? 0;
      if (count !== this.seen) {
        this.seen = count;
        this.last = now;
      }
      const quiet = now - this.last;
      if (quiet >= this.idleMs) {
        this.stopped = true;
        this.onIdle();
      } else this.timer = setTimeout(this.check, this.next(this.idleMs - quiet));
    });
  };
}
