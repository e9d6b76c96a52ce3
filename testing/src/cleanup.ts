// after() hooks that run every step: a before() that failed half-way leaves later resources
// undefined, and a hook that stopped at the first of them left the processes started before it
// running, which kept the test file (and the whole suite) from ever ending.

/** Runs each step whatever the others did, then throws what failed (the first, or all). */
export async function cleanUp(...steps: (() => unknown)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} cleanup steps failed`);
}
