// The last line of defence, for an error no part caught. A lost connection that still reaches the
// process (a library's `error` event with nobody listening) is what a restart or a failover of
// PostgreSQL, RabbitMQ or Redis produces: its owner reconnects by itself, so it is logged, counted
// and survived. Any other exception thrown out of a callback stopped that callback half-way, in a
// state nobody knows: it is logged and counted, and the process exits 1 so that its supervisor
// (Kubernetes, systemd, the demo) starts a fresh one. A promise rejected with nobody waiting ran
// its `finally` blocks already: logged and counted, not a reason to exit. Never silence.
import type { Logger } from '../log.js';
import { errorMessage } from '../log.js';

/** SQLSTATE classes of a connection that ended: 08 connection exception, 57 operator intervention. */
const LOST_SQLSTATE = /^(08|57)/;
const LOST_SYSCALL = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** What pg, amqplib and ioredis say when the other side closed the connection. */
const LOST_MESSAGE = /^(Connection terminated|Connection closed|Socket closed|Client was closed)/i;

/** Which part a lost connection belonged to, from what its library put on the error. */
export function lostConnection(err: unknown): { part: string } | null {
  if (!(err instanceof Error)) return null;
  const e = err as Error & { code?: unknown; severity?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (typeof e.severity === 'string' && LOST_SQLSTATE.test(code)) return { part: 'database' };
  if (/^Connection terminated/.test(e.message)) return { part: 'database' };
  if (LOST_SYSCALL.has(code) || LOST_MESSAGE.test(e.message)) return { part: 'connection' };
  return null;
}

/**
 * Installs the process's handlers: `count(part)` is acktrail_background_errors_total; `exit` ends
 * the process (process.exit, after the log line is written).
 */
export function guardProcess(
  log: Logger,
  count: (part: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  const handle = (err: unknown, origin: string) => {
    const lost = lostConnection(err);
    const part = lost?.part ?? 'process';
    count(part);
    const fields = { part, origin, err: errorMessage(err) };
    if (lost) {
      log.warn(fields, 'a lost connection reached the process unhandled; its owner reconnects');
    } else if (origin === 'unhandledRejection') {
      log.error(fields, 'a promise failed with nobody waiting for it');
    } else {
      const stack = err instanceof Error ? err.stack : undefined;
      log.fatal({ ...fields, stack }, 'unrecoverable error: exiting for a supervisor to restart');
      exit(1);
    }
  };
  process.on('uncaughtException', (err, origin) => {
    handle(err, origin);
  });
  process.on('unhandledRejection', (reason) => {
    handle(reason, 'unhandledRejection');
  });
}
