// Small helpers shared by the benchmarks: rounds run interleaved, medians, ratio lines.
import { readFileSync } from 'node:fs';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

/** Runs each case once per round, in the same order, so drift on the machine hits all alike. */
export async function interleaved<K extends string>(
  rounds: number,
  cases: Record<K, () => Promise<number>>,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<Record<K, number[]>> {
  const results = Object.fromEntries(Object.keys(cases).map((k) => [k, [] as number[]])) as Record<
    K,
    number[]
  >;
  for (let r = 1; r <= rounds; r++) {
    for (const [name, run] of Object.entries(cases) as [K, () => Promise<number>][]) {
      const value = await run();
      results[name].push(value);
      log(`  round ${r}/${rounds} ${name}: ${value.toFixed(1)}`);
    }
  }
  return results;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * The CPU time the whole machine has spent so far (every core, every process; /proc/stat, in
 * USER_HZ ticks of 10 ms), in ms: the work a case costs across the broker, PostgreSQL and Node.
 */
export function machineCpuMs(): number {
  const first = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, , , irq, softirq, steal] = first
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
}

/** The CPU time one process has spent so far (utime + stime of /proc/<pid>/stat), in ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * A thread's time on a core and waiting, runnable, for one (/proc/<pid>/task/<tid>/schedstat, ns),
 * in ms so far; null where the kernel does not keep it. A process's main thread has its pid.
 */
export function threadSchedMs(pid: number, tid = pid): { ran: number; waited: number } | null {
  try {
    const [ran, waited] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    return { ran: ran! / 1e6, waited: waited! / 1e6 };
  } catch {
    return null;
  }
}

/** The CPU time this process has spent so far (user and system), in ms. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU spent in a case's runs, in ms: the whole machine's, one process's, this process's. */
export interface CpuSpent {
  machine: number;
  process: number;
  self: number;
}

/** Wraps a case so that each run adds the CPU it cost to `spent` (`pid`: the process to single out). */
export function metered(
  run: () => Promise<number>,
  spent: CpuSpent,
  pid?: number,
): () => Promise<number> {
  return async () => {
    const [machine, proc, self] = [machineCpuMs(), pid ? processCpuMs(pid) : 0, ownCpuMs()];
    const value = await run();
    spent.machine += machineCpuMs() - machine;
    spent.process += (pid ? processCpuMs(pid) : 0) - proc;
    spent.self += ownCpuMs() - self;
    return value;
  };
}

/**
 * What sets a baseline exporter (BENCH_BASELINE) apart besides its checkout, so that one build
 * can be measured beside itself: BENCH_BASELINE_NODE_FLAGS, Node flags after the exporter's own
 * (the last wins), and BENCH_BASELINE_ENV, "K=V K=V" over its environment ("K=" removes K).
 */
export const baselineNodeFlags = (): string[] =>
  (process.env.BENCH_BASELINE_NODE_FLAGS ?? '').split(' ').filter(Boolean);

export function baselineEnv(env: Record<string, string>): Record<string, string> {
  const out = new Map(Object.entries(env));
  for (const pair of (process.env.BENCH_BASELINE_ENV ?? '').split(' ').filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`BENCH_BASELINE_ENV: "${pair}" is not K=V`);
    const [key, value] = [pair.slice(0, at), pair.slice(at + 1)];
    if (value === '') out.delete(key);
    else out.set(key, value);
  }
  return Object.fromEntries(out);
}

/** A process's memory from /proc/<pid>/status, in MB: VmRSS now, or VmHWM (its peak). */
export function procMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}
