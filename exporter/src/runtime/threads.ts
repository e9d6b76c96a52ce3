// Background threads below the event loop. When the cores are short (a flood of spans on a small
// node), the event loop that answers /metrics, /healthz and the API should get one first; the
// work that can wait runs at a lower CPU priority: the decoding workers (receiver/decoder.ts) and
// V8's own helper threads, which collect garbage beside the isolates (the event loop's and the
// decoding workers'). docs/benchmarks-history.md, "Spans turned into steps in the worker; V8's helper
// threads below the event loop", has the figures.
//
// Linux only: there a thread has a nice value of its own, set with setpriority on its thread id
// (0: the calling thread). Elsewhere that would lower the whole process. A refusal (a sandbox)
// leaves the thread as it was: slower answers under load, nothing wrong.
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Nice steps between the event loop and the threads that can wait. */
export const BACKGROUND_NICE = 10;

function lower(tid: number): boolean {
  try {
    setPriority(tid, Math.min(19, getPriority(tid) + BACKGROUND_NICE));
    return true;
  } catch {
    return false;
  }
}

/** Lowers the calling thread (a worker's). */
export function lowerThisThread(): void {
  if (process.platform === 'linux') lower(0);
}

/**
 * Lowers V8's helper threads ("V8Worker"; Node starts them with the process, --v8-pool-size of
 * them). Returns how many were lowered.
 */
export function lowerHelperThreads(): number {
  if (process.platform !== 'linux') return 0;
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return 0; // no /proc: nothing lowered
  }
  let lowered = 0;
  for (const tid of tids) {
    let name: string;
    try {
      name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue; // the thread ended meanwhile
    }
    if (name === 'V8Worker' && lower(Number(tid))) lowered++;
  }
  return lowered;
}
