// How long a request body has sent nothing, told in a way an event-loop stall cannot fool: when
// the timer fires after the loop was busy, the bytes that arrived meanwhile have not been read
// yet. The check waits for setImmediate, which runs after this turn's poll phase has read them,
// and only then compares the time since the last byte with the bound.
export class IdleWatch {
  private last = performance.now();
  private timer: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.timer = setTimeout(this.check, idleMs);
  }

  /** Bytes arrived. */
  touch(): void {
    this.last = performance.now();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private readonly check = (): void => {
    setImmediate(() => {
      if (this.stopped) return;
      const quiet = performance.now() - this.last;
      if (quiet >= this.idleMs) {
        this.stopped = true;
        this.onIdle();
      } else this.timer = setTimeout(this.check, this.idleMs - quiet);
    });
  };
}
