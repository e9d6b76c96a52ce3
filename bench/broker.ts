// What the queue benches measure the broker with: its CPU (utime + stime of the node's process,
// from /proc), the exporter's RSS, one timed HTTP call, and many queues declared fast.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import amqp from 'amqplib';

export const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** The OS process of a RabbitMQ node (the default node when `node` is not given). */
export function brokerPid(node?: string): number {
  const args = [...(node ? ['-n', node] : []), '-q', 'eval', 'os:getpid().'];
  return Number(execFileSync('rabbitmqctl', args).toString().replace(/\D/g, ''));
}

export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime + stime
}

/** A process's resident memory now (VmRSS) or at its peak (VmHWM), MB. */
export function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

export interface Sample {
  seconds: number;
  /** CPU-seconds of the broker processes during the call, summed. */
  cpu: number;
}

/**
 * One call (or several at once: `urls`) with its latency (until the last answer) and the broker
 * CPU it cost; a failed call (error status, closed socket) is returned as the error.
 */
export async function timed(
  urls: [string, Record<string, string>][],
  pids: number[],
): Promise<Sample | Error> {
  const cpu0 = pids.reduce((s, p) => s + cpuSeconds(p), 0);
  const t0 = performance.now();
  try {
    await Promise.all(
      urls.map(async ([url, headers]) => {
        const res = await fetch(url, { headers, signal: AbortSignal.timeout(120_000) });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`status ${res.status}`);
      }),
    );
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
  const cpu = pids.reduce((s, p) => s + cpuSeconds(p), 0) - cpu0;
  return { seconds: (performance.now() - t0) / 1000, cpu };
}

/** Declares `bench.q0` … on the vhosts at `vhostUrls`, queue i through vhostUrls[i % length]. */
export async function createQueues(vhostUrls: string[], n: number): Promise<void> {
  const conns = await Promise.all(vhostUrls.map((u) => amqp.connect(u)));
  const channels = await Promise.all(
    conns.flatMap((c) => Array.from({ length: 8 }, () => c.createChannel())),
  );
  const perConn = 8;
  const next = vhostUrls.map((_, i) => i);
  await Promise.all(
    channels.map(async (ch, k) => {
      const c = Math.floor(k / perConn);
      for (;;) {
        const i = next[c]!;
        if (i >= n) break;
        next[c] = i + vhostUrls.length;
        await ch.assertQueue(`bench.q${i}`, { durable: false });
        if (i % 5000 === 0) process.stderr.write(`  ${i}/${n} queues\n`);
      }
    }),
  );
  await Promise.all(conns.map((c) => c.close()));
}
