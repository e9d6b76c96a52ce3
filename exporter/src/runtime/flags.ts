// What acktrail needs of V8 and of glibc's allocator, applied by the program itself, so that
// `acktrail serve`, `npm start`, `npm run demo`, the benches and the image run the same process
// (docs/metrics.md, "Running"):
// - `--max-semi-space-size=16`: Node 24 sizes the young generation by the machine's memory; on
//   24 GB that kept about 100 MB more resident under an ingest flood (docs/benchmarks-history.md, "Memory").
// - `--expose-gc`: the last-resort collection after a burst (api/idle-collect.ts).
// - MALLOC_ARENA_MAX=2 and MALLOC_TRIM_THRESHOLD_=131072: libuv's threads gzip the expositions and
//   each would keep an arena of its own; a fixed trim threshold also fixes the mmap threshold, so
//   freed megabyte answers go back to the system. glibc reads both when the process starts.
// V8 sizes its heap and glibc its arenas when the process starts, so the process starts itself
// again with them, once, in place (process.execve: same pid, same signals, nothing supervising).
// Where that is not possible (no execve: Windows, a worker) it runs as started and says so.

export const NODE_FLAGS = ['--max-semi-space-size=16', '--expose-gc'] as const;
export const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' } as const;
/** Set on the process started again: it does not start itself a third time. */
const APPLIED = 'ACKTRAIL_RUNTIME_APPLIED';

export type RuntimeStart =
  | { kind: 'applied' }
  | { kind: 'as-started'; reason: string }
  /** Never returns in practice: the process image is replaced. */
  | { kind: 'restarting' };

/**
 * Starts this process again with NODE_FLAGS and MALLOC_ENV unless it already runs with them;
 * `enabled: false` (ACKTRAIL_RUNTIME_FLAGS=off) leaves it as it was started.
 */
export function applyRuntimeFlags(
  enabled: boolean,
  env: NodeJS.ProcessEnv = process.env,
  proc: Pick<NodeJS.Process, 'execve' | 'execPath' | 'execArgv' | 'argv'> = process,
): RuntimeStart {
  if (!enabled) return { kind: 'as-started', reason: 'ACKTRAIL_RUNTIME_FLAGS=off' };
  if (runsWithFlags(env, proc.execArgv)) return { kind: 'applied' };
  // Started again once already and still without them (a wrapper dropped the flags or the
  // environment): never a loop of restarts.
  if (env[APPLIED] === '1')
    return { kind: 'as-started', reason: 'started again, but the flags did not reach Node' };
  if (typeof proc.execve !== 'function')
    return { kind: 'as-started', reason: 'this Node cannot start itself again (process.execve)' };
  const args = [proc.execPath, ...NODE_FLAGS, ...proc.execArgv, ...proc.argv.slice(1)];
  proc.execve(proc.execPath, args, { ...env, ...MALLOC_ENV, [APPLIED]: '1' });
  return { kind: 'restarting' };
}

/** Whether V8 got NODE_FLAGS (on the command line or in NODE_OPTIONS) and glibc MALLOC_ENV. */
function runsWithFlags(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  const given = new Set([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]);
  return (
    NODE_FLAGS.every((flag) => given.has(flag)) &&
    Object.entries(MALLOC_ENV).every(([key, value]) => env[key] === value)
  );
}
