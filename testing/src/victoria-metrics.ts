// A real VictoriaMetrics (Debian's victoria-metrics package) for a test: a single-node server
// that a TestPrometheus remote-writes into, with vmalert evaluating acktrail's alert rules
// (prometheus/rules/) against it, as VictoriaMetrics setups run them, and the server proxying
// the rules API to vmalert (-vmalert.proxyURL): what the dashboard's problems strip reads.
// vmalert wants somewhere to send alerts: a sink of the test's own that takes them and answers
// 200 (no test here looks at notifications).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { REPO_ROOT } from './processes.js';
import { waitFor } from './wait.js';
import { hasFinitePoints, instantQuery, type PromSeries } from './prometheus.js';

export class TestVictoriaMetrics {
  private constructor(
    private readonly children: ChildProcess[],
    private readonly sink: Server,
    private readonly dir: string,
    /** The server's base URL: its Prometheus-compatible query API, and /api/v1/write. */
    readonly url: string,
  ) {}

  /** Where a Prometheus remote-writes. */
  get writeUrl(): string {
    return `${this.url}/api/v1/write`;
  }

  static async start(): Promise<TestVictoriaMetrics> {
    const dir = mkdtempSync(join(tmpdir(), 'acktrail-vm-'));
    const [vmPort, alertPort] = [await freePort(), await freePort()];
    const sink = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    sink.listen(0, '127.0.0.1');
    await once(sink, 'listening');
    const sinkPort = (sink.address() as { port: number }).port;
    const url = `http://127.0.0.1:${vmPort}`;
    const spawnQuiet = (cmd: string, args: string[]) =>
      spawn(cmd, [...args, '-loggerLevel=ERROR'], { stdio: ['ignore', 'ignore', 'inherit'] });
    const vm = spawnQuiet('victoria-metrics', [
      `-storageDataPath=${join(dir, 'data')}`,
      `-httpListenAddr=127.0.0.1:${vmPort}`,
      // Samples are queryable as soon as they arrive (the default holds the last 30 s back).
      '-search.latencyOffset=1s',
      '-search.disableCache',
      `-vmalert.proxyURL=http://127.0.0.1:${alertPort}`,
    ]);
    const vmalert = spawnQuiet('vmalert', [
      `-rule=${join(REPO_ROOT, 'prometheus', 'rules', '*.yml')}`,
      `-datasource.url=${url}`,
      `-remoteWrite.url=${url}`,
      `-notifier.url=http://127.0.0.1:${sinkPort}`,
      `-httpListenAddr=127.0.0.1:${alertPort}`,
      '-evaluationInterval=1s',
    ]);
    const server = new TestVictoriaMetrics([vm, vmalert], sink, dir, url);
    await waitFor(
      'VictoriaMetrics and vmalert ready',
      async () => {
        for (const c of [vm, vmalert])
          if (c.exitCode !== null) throw new Error(`${c.spawnfile} exited with ${c.exitCode}`);
        const rules = await fetch(`${url}/api/v1/rules?type=alert`);
        return (await fetch(`${url}/health`)).ok && rules.ok;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    return server;
  }

  /** An instant query; throws on a query the server refuses. */
  query(expr: string): Promise<PromSeries[]> {
    return instantQuery(this.url, expr);
  }

  /** Whether `expr` has a finite value at some step of [start, end] (unix seconds). */
  hasPoints(expr: string, start: number, end: number): Promise<boolean> {
    return hasFinitePoints(this.url, expr, start, end);
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.children.map(async (c) => {
        if (c.exitCode !== null) return;
        c.kill('SIGTERM');
        await once(c, 'exit');
      }),
    );
    this.sink.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
