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
