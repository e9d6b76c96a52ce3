// A PgBouncer of the test's own (Debian's pgbouncer) in front of this machine's PostgreSQL, with
// transaction pooling, as most teams reach a shared PostgreSQL: each client transaction may run on
// another server connection, and startup parameters other than the usual few are refused.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import pg from 'pg';
import { freePort } from './ports.js';
import { ADMIN_DATABASE_URL } from './services.js';
import { waitFor } from './wait.js';

export class TestPgBouncer {
  private constructor(
    private readonly proc: ChildProcess,
    readonly port: number,
    readonly output: string[],
  ) {}

  /** `url` (a database of this machine's PostgreSQL) as reached through this PgBouncer. */
  through(url: string): string {
    const u = new URL(url);
    u.port = String(this.port);
    return u.toString();
  }

  static async start(): Promise<TestPgBouncer> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'acktrail-pgbouncer-'));
    // PgBouncer refuses to run as root; it reads its files as the user it switches to.
    chmodSync(dir, 0o755);
    const admin = new URL(ADMIN_DATABASE_URL);
    const user = decodeURIComponent(admin.username);
    const password = decodeURIComponent(admin.password);
    writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`);
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${admin.hostname} port=${admin.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = md5',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        'max_client_conn = 500',
        'default_pool_size = 20',
        // What PgBouncer does by default: only these few startup parameters are let through.
        'ignore_startup_parameters = extra_float_digits',
        '',
      ].join('\n'),
    );
    const asRoot = process.getuid?.() === 0;
    const proc = spawn(
      'pgbouncer',
      [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output: string[] = [];
    for (const s of [proc.stdout, proc.stderr])
      s.on('data', (c: Buffer) => output.push(c.toString()));
    const bouncer = new TestPgBouncer(proc, port, output);
    await waitFor(`PgBouncer on ${port} (${output.join('')})`, async () => {
      if (proc.exitCode !== null) throw new Error(`pgbouncer exited: ${output.join('')}`);
      const c = new pg.Client({ connectionString: bouncer.through(ADMIN_DATABASE_URL) });
      try {
        await c.connect();
        await c.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await c.end().catch(() => undefined);
      }
    });
    return bouncer;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    this.proc.kill('SIGINT');
    await once(this.proc, 'exit');
  }
}
