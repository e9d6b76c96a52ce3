// A process started through npm (`npx acktrail serve`, `npm run ...`) runs under `npm -> sh -c ->
// node`. A SIGTERM or SIGINT sent to npm reaches the shell, which dies of it without passing it on:
// the exporter is left behind, reparented, still holding its ports. So a process npm started
// watches its parent, and treats the parent's going (its parent process id changes) as the
// signal it did not get. Started directly (the image's CMD, a service manager), it gets the
// signal itself and nothing is watched.
const INTERVAL_MS = 250;

/** Calls `gone` once when this process's parent exits; stops watching then. */
export function onParentExit(gone: () => void): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, INTERVAL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
