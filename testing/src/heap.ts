// The heap's live size, for tests that show what a piece of code keeps alive: the same measure
// before and after, each after full collections.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * The process's memory after a full collection, twice a turn apart: the test runner's async hooks
 * forget a collected promise only a turn after the collection.
 */
export async function memoryAfterGc(): Promise<NodeJS.MemoryUsage> {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return process.memoryUsage();
}

/** Bytes of live heap after a full collection (memoryAfterGc). */
export async function heapAfterGc(): Promise<number> {
  return (await memoryAfterGc()).heapUsed;
}
