// The reference pipeline's roles as real child processes (crash faults call process.exit), run from
// its main.ts with the role as the first argument.
import { fileURLToPath } from 'node:url';
import { RoleProcess } from '@acktrail/testing';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** Starts a role and waits until it says it is ready; returns it with its port, if any. */
export async function startRole(
  role: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<RoleProcess & { port: number }> {
  const proc = new RoleProcess(role, env, [role, ...args], MAIN);
  const ready = await proc.ready().catch(async (err: unknown) => {
    await proc.kill();
    throw err;
  });
  return Object.assign(proc, { port: Number(ready.port ?? 0) });
}
