// A Redis server a test starts for itself (Debian's redis-server, no persistence), so that
// stopping it, or what is published on it, touches no other test.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { waitFor } from './wait.js';

export class OwnRedis {
  private proc: ChildProcess | null = null;

  constructor(readonly port: number) {}

  /** redis://127.0.0.1:<port>/<db> */
  url(db = 0): string {
    return `redis://127.0.0.1:${this.port}/${db}`;
  }

  /** Starts the server and waits until it answers PING (bounded by waitFor). */
  async start(): Promise<void> {
    this.proc = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor('Redis answering', async () => {
      const r = new Redis(this.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
      // Refused until the server listens: connect() rejects, and ioredis would also print the
      // error as unhandled.
      r.on('error', () => undefined);
      try {
        await r.connect();
        await r.ping();
        return true;
      } catch {
        return false;
      } finally {
        r.disconnect();
      }
    });
  }

  /** Kills the server (as losing it would) and waits for it to exit. */
  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null) return;
    p.kill('SIGKILL');
    await once(p, 'exit');
  }
}
