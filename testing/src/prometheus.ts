// A real Prometheus (Debian's package) for a test: scrapes the given targets every second (in
// OpenMetrics where they offer it, with exemplar storage on, as the demo's and compose's
// Prometheus run), evaluates acktrail's alert rules (prometheus/rules/) every second, keeps its
// data in a temporary directory, and answers PromQL through its HTTP API.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { REPO_ROOT } from './processes.js';
import { waitFor } from './wait.js';

export interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

/** A scrape target with the labels its service discovery gives it. */
export interface LabelledTarget {
  url: string;
  labels: Record<string, string>;
}

export interface PromExemplars {
  seriesLabels: Record<string, string>;
  exemplars: { labels: Record<string, string>; value: string; timestamp: number }[];
}

/** Prometheus 3 (Debian unstable's package), fetched by scripts/prometheus3.sh; `prometheus` is 2.42. */
export const PROMETHEUS3 = join(REPO_ROOT, '.tools/prometheus3/usr/bin/prometheus');

export class TestPrometheus {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly url: string,
  ) {}

  /**
   * `targets`: job name to base URL (its /metrics is scraped), or to several targets each with
   * the labels it gets (as a service discovery's relabelling gives them: `job` and `instance`
   * among them override the defaults); `remoteWrite`: a URL every sample is also sent to (a
   * VictoriaMetrics, say); `scrapeInterval`: how often it scrapes (and evaluates the rules), 1s
   * unless given (the demo's is 10s); `binary`: which Prometheus (this machine's 2.42 unless
   * given: PROMETHEUS3).
   */
  static async start(
    targets: Record<string, string | LabelledTarget[]>,
    {
      remoteWrite,
      scrapeInterval = '1s',
      binary = 'prometheus',
    }: { remoteWrite?: string; scrapeInterval?: string; binary?: string } = {},
  ): Promise<TestPrometheus> {
    const dir = mkdtempSync(join(tmpdir(), 'acktrail-prometheus-'));
    const jobs = Object.entries(targets).map(([job, given]) => {
      const list = typeof given === 'string' ? [{ url: given, labels: {} }] : given;
      const statics = list.map(
        ({ url, labels }) =>
          `      - targets: ['${new URL(url).host}']\n        labels: ${JSON.stringify(labels)}`,
      );
      return `  - job_name: ${job}\n    static_configs:\n${statics.join('\n')}`;
    });
    const targetCount = Object.values(targets).reduce(
      (n, t) => n + (typeof t === 'string' ? 1 : t.length),
      0,
    );
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        `  scrape_interval: ${scrapeInterval}`,
        `  evaluation_interval: ${scrapeInterval}`,
        'rule_files:',
        `  - ${join(REPO_ROOT, 'prometheus', 'rules', '*.yml')}`,
        'scrape_configs:',
        ...jobs,
        // Sent at once, in small batches: a test reads the other side within seconds.
        ...(remoteWrite
          ? [
              'remote_write:',
              `  - url: ${remoteWrite}`,
              '    queue_config: { batch_send_deadline: 1s, max_samples_per_send: 2000 }',
            ]
          : []),
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const child = spawn(
      binary,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--enable-feature=exemplar-storage',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const prom = new TestPrometheus(child, dir, `http://127.0.0.1:${port}`);
    await waitFor(
      'Prometheus ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}`);
        return (await fetch(`${prom.url}/-/ready`)).ok;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    // Prometheus hands new targets to its scrapers a few seconds after it starts: wait for a
    // first successful scrape of each, so that what the test does next is seen from its start
    // (the exporter's incremental collectors count only rows that appear after their first run).
    await waitFor(
      `a first scrape of ${Object.keys(targets).join(', ')}`,
      async () => (await prom.query('up == 1')).length === targetCount,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    return prom;
  }

  /** An instant query, now or at `time` (unix seconds); throws on a query Prometheus refuses. */
  query(expr: string, time?: number): Promise<PromSeries[]> {
    return instantQuery(this.url, expr, time);
  }

  /** The exemplars stored for the series `expr` selects in [start, end] (unix seconds). */
  async exemplars(expr: string, start: number, end: number): Promise<PromExemplars[]> {
    const params = new URLSearchParams({
      query: expr,
      start: String(Math.floor(start)),
      end: String(Math.ceil(end)),
    });
    const res = await fetch(`${this.url}/api/v1/query_exemplars?${params.toString()}`);
    const body = (await res.json()) as { status: string; error?: string; data: PromExemplars[] };
    if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
    return body.data;
  }

  /** Whether `expr` has a finite value at some step of [start, end] (unix seconds). */
  hasPoints(expr: string, start: number, end: number): Promise<boolean> {
    return hasFinitePoints(this.url, expr, start, end);
  }

  /** Waits until `expr` returns at least one series; returns them. */
  async waitForSeries(expr: string, timeoutMs = 60_000): Promise<PromSeries[]> {
    return waitFor(
      `Prometheus to return ${expr}`,
      async () => {
        const r = await this.query(expr);
        return r.length ? r : null;
      },
      { timeoutMs, intervalMs: 250 },
    );
  }

  private closed = false;

  /** Stops Prometheus and removes its data; a second call does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.child.exitCode === null) {
      this.child.kill('SIGTERM');
      await once(this.child, 'exit');
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A range query (5 s steps) against a Prometheus-compatible API at `base`: true when some series
 * has a finite point (NaN, what a quantile of no observations gives, is no data on a panel).
 */
export async function hasFinitePoints(
  base: string,
  expr: string,
  start: number,
  end: number,
): Promise<boolean> {
  const params = new URLSearchParams({
    query: expr,
    start: String(Math.floor(start)),
    end: String(Math.ceil(end)),
    step: '5',
  });
  const res = await fetch(`${base}/api/v1/query_range?${params.toString()}`);
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data: { result: { values: [number, string][] }[] };
  };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data.result.some((r) => r.values.some(([, v]) => Number.isFinite(Number(v))));
}

/** An instant query against a Prometheus-compatible API at `base`; throws on a refused query. */
export async function instantQuery(
  base: string,
  expr: string,
  time?: number,
): Promise<PromSeries[]> {
  const params = new URLSearchParams({ query: expr });
  if (time !== undefined) params.set('time', String(time));
  const res = await fetch(`${base}/api/v1/query?${params.toString()}`);
  const body = (await res.json()) as { status: string; error?: string; data: { result: [] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data.result;
}
