// Runs a program as a real child process (a pipeline's role, the exporter, a client), collects its
// JSON log lines and lets tests wait for a given line.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface LogLine {
  msg?: string;
  level?: number;
  [key: string]: unknown;
}

export class RoleProcess {
  readonly lines: LogLine[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(
    /** Its name in waits and errors. */
    readonly role: string,
    env: Record<string, string>,
    args: string[],
    /** The entry module, run with tsx. */
    script: string,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      try {
        this.lines.push(JSON.parse(line) as LogLine);
      } catch {
        this.lines.push({ msg: line });
      }
    });
    createInterface({ input: this.child.stderr! }).on('line', (line) => this.stderr.push(line));
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits for a log line matching `match`; fails early if the process exits first. */
  async waitForLog(
    match: (l: LogLine) => boolean,
    what: string,
    timeoutMs = 30_000,
  ): Promise<LogLine> {
    return waitFor(
      `${this.role}: ${what}`,
      () => {
        const line = this.lines.find(match);
        if (line) return line;
        if (!this.running)
          throw new Error(`${this.role} exited: ${this.stderr.slice(-5).join('\n')}`);
        return undefined;
      },
      { timeoutMs },
    );
  }

  /** Bounded by a minute: on a loaded two-core machine a role took more than 30 s to start. */
  async ready(timeoutMs = 60_000): Promise<LogLine> {
    return this.waitForLog((l) => l.msg === 'ready', 'ready', timeoutMs);
  }

  /** SIGTERM and wait for the exit (SIGKILL after the grace period). */
  async stop(graceMs = 10_000): Promise<number | null> {
    if (!this.running) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }
}
