// `acktrail serve`: serves the configuration it is given. On SIGTERM or SIGINT it drains: no new
// connections, in-flight requests (and the commits they wait for) finish within
// ACKTRAIL_SHUTDOWN_TIMEOUT_SECONDS, then the parts close and it exits 0. Started by npm (npx, npm
// run), the exit of npm's shell is the same signal (runtime/orphan.ts).
import type { ValidatedConfig } from '../config.js';
import { listen } from '../listen.js';
import { requestsInFlight } from '../receiver/http-listener.js';
import { coerceError, createLogger } from '../log.js';
import { createExporter } from '../server.js';
import { applyRuntimeFlags } from '../runtime/flags.js';
import { lowerHelperThreads } from '../runtime/threads.js';
import { guardProcess } from '../runtime/last-resort.js';
import { onParentExit } from '../runtime/orphan.js';
import { docsUrl } from '../docs.js';

export async function serve(config: ValidatedConfig): Promise<void> {
  const runtime = applyRuntimeFlags(config.runtimeFlags);
  const log = createLogger(config.logLevel);
  if (runtime.kind === 'as-started')
    log.warn({ reason: runtime.reason }, "running without acktrail's V8 and allocator settings");
  // Garbage collection beside the isolates can wait; the event loop's answers cannot (threads.ts).
  if (config.lowerThreads) lowerHelperThreads();
  const exporter = createExporter(config, log);
  guardProcess(log, (part) => {
    exporter.health.count(part);
  });
  const { ports, servers } = await listen(exporter, config);
  const { main: port, ...others } = ports;
  const own = Object.fromEntries(Object.entries(others).filter(([, p]) => p !== null));
  log.info(
    { host: config.listenHost, port, ...own, config: config.configFile ?? 'defaults' },
    'ready',
  );
  const loopback = config.listenHost === 'localhost' || /^(127\.|::1$)/.test(config.listenHost);
  if (!loopback && !config.journeys.ingestToken)
    log.warn(
      { host: config.listenHost },
      `listening beyond loopback without an ingest token: anyone who reaches this port can add journey steps (set ACKTRAIL_INGEST_TOKEN; ${docsUrl('security.md', 'what-each-token-protects')})`,
    );

  const inFlight = requestsInFlight(servers);

  let stopping = false;
  async function stop(signal: string): Promise<void> {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting without draining');
      process.exit(1);
    }
    stopping = true;
    const deadline = Date.now() + config.shutdownTimeoutMs;
    log.info(
      { signal, inFlight: inFlight.count() },
      'stopping: refusing new requests, draining the ones in flight',
    );
    exporter.stopAccepting();
    for (const server of servers) {
      server.close();
      server.closeIdleConnections();
    }
    if (!(await inFlight.drained(deadline)))
      log.warn(
        { inFlight: inFlight.count() },
        'shutdown deadline reached; closing the connections still open',
      );
    for (const server of servers) server.closeAllConnections();
    const closed = exporter.close().then(
      () => true,
      (err: unknown) => {
        log.error({ err: coerceError(err).message }, 'closing failed');
        return false;
      },
    );
    const timedOut = new Promise<boolean>((r) => {
      setTimeout(() => {
        r(false);
      }, 5000).unref();
    });
    const ok = await Promise.race([closed, timedOut]);
    log.info('stopped');
    process.exit(ok ? 0 : 1);
  }
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Under npm, a signal to npm ends its shell, not this process: the shell's going is the signal.
  if (config.startedByNpm) onParentExit(() => void stop('parent exited'));
}
