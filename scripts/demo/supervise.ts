// The demo's supervisor: each part runs as a child of its own, and one that fails (a non-zero
// exit or a signal) while the demo is not stopping is started again, as Kubernetes or systemd
// would restart it, after a delay that doubles from 1 s to 30 s while it keeps failing (back to
// 1 s once it ran for a minute); one that exits 0 ended by itself and is left so. The exporter
// exits on purpose for what it cannot recover from (runtime/last-resort.ts): here, as in
// production, something brings it back, and says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { format } from './output.js';
import type { Service } from './services.js';

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;
/** A run this long counts as healthy: the next failure waits the first delay again. */
const HEALTHY_MS = 60_000;

export class Supervisor {
  readonly children = new Map<string, ChildProcess>();
  private stopping = false;

  constructor(private readonly env: Record<string, string | undefined>) {}

  /** Starts `s`, and starts it again whenever it exits until stop(). */
  run(s: Service, delayMs = FIRST_DELAY_MS): void {
    const startedAt = Date.now();
    const child = spawn(s.command ?? process.execPath, s.args, {
      env: { ...this.env, ...s.env },
      cwd: s.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own: Ctrl-C reaches the demo only, which stops the children in order.
      detached: true,
    });
    this.children.set(s.name, child);
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => {
        console.log(format(s.name, line));
      });
    child.on('exit', (code, signal) => {
      this.children.delete(s.name);
      if (this.stopping) return;
      if (code === 0) {
        console.log(`demo: ${s.name} ended by itself (0); the rest keeps running`);
        return;
      }
      const next = Date.now() - startedAt >= HEALTHY_MS ? FIRST_DELAY_MS : delayMs;
      console.log(
        `demo: ${s.name} exited (${signal ?? code}); starting it again in ${next / 1000} s, the rest keeps running`,
      );
      setTimeout(() => {
        if (!this.stopping) this.run(s, Math.min(next * 2, MAX_DELAY_MS));
      }, next).unref();
    });
  }

  /** From now on an exit is the end: nothing is started again. */
  stop(): void {
    this.stopping = true;
  }
}
