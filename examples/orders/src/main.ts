// Entry point of every process of the reference pipeline: `tsx src/main.ts <role>`.
// Roles: api, relay, worker, provider, loadgen, migrate. Each logs JSON lines; a line with
// msg "ready" says it is up (and on which port). SIGTERM and SIGINT stop it cleanly.
// Tracing starts first, before amqplib, pg and http are loaded (./tracing.ts).
import { tracing } from './tracing.js';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createApp } from './api/app.js';
import { dropIncomingTraceContext } from './api/context.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { migrate } from './db/migrate.js';
import { createPool } from './db/pool.js';
import { formatProgress, runLoad } from './loadgen/loadgen.js';
import { coerceError, createLogger, type Logger } from './log.js';
import { createProviderApp } from './provider/server.js';
import { Relay } from './relay/relay.js';
import { Worker } from './worker/worker.js';

type Stop = () => Promise<void>;

async function listen(
  app: import('express').Express,
  port: number,
  host: string,
  prepare: (server: Server) => void = () => undefined,
): Promise<Server> {
  const server = createServer(app);
  prepare(server);
  server.listen(port, host);
  await once(server, 'listening');
  return server;
}

function portOf(server: Server): number {
  const addr = server.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });

const roles: Record<string, (config: Config, log: Logger, argv: string[]) => Promise<Stop>> = {
  async api(config, log) {
    const pool = createPool(config.databaseUrl);
    const server = await listen(
      createApp(pool, log),
      config.api.port,
      config.listenHost,
      dropIncomingTraceContext,
    );
    log.info({ port: portOf(server) }, 'ready');
    return async () => {
      await closeServer(server);
      await pool.end();
    };
  },

  async relay(config, log) {
    const pool = createPool(config.databaseUrl, 4);
    const relay = new Relay(pool, config, log);
    await relay.start();
    log.info({ batch_size: config.relay.batchSize }, 'ready');
    return async () => {
      await relay.stop();
      await pool.end();
      log.info(relay.stats, 'relay stopped');
    };
  },

  async worker(config, log) {
    const pool = createPool(config.databaseUrl, Math.min(20, config.worker.prefetch + 2));
    const worker = new Worker(pool, config, log);
    await worker.start();
    log.info({ prefetch: config.worker.prefetch }, 'ready');
    return async () => {
      await worker.stop();
      await pool.end();
    };
  },

  async provider(config, log) {
    const server = await listen(
      createProviderApp(config.provider, log, config.provider.adminToken),
      config.provider.port,
      config.listenHost,
    );
    log.info({ port: portOf(server) }, 'ready');
    return () => closeServer(server);
  },

  async migrate(config, log) {
    const applied = await migrate(config.databaseUrl);
    log.info({ applied }, 'ready');
    return () => Promise.resolve();
  },

  loadgen(config, log, argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        rate: { type: 'string', default: '10' },
        duration: { type: 'string', default: '0' },
        'invalid-ratio': { type: 'string', default: '0' },
        'progress-interval': { type: 'string', default: '1' },
        api: { type: 'string', default: `http://127.0.0.1:${config.api.port}` },
      },
    });
    const parsed = z
      .object({
        rate: z.coerce.number().positive(),
        duration: z.coerce.number().min(0),
        'invalid-ratio': z.coerce.number().min(0).max(1),
        'progress-interval': z.coerce.number().positive(),
        api: z.url(),
      })
      .safeParse(values);
    if (!parsed.success) {
      console.error(
        `loadgen: ${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
      process.exit(2);
    }
    const opts = parsed.data;
    const stop = new AbortController();
    log.info({ rate: opts.rate, duration_s: opts.duration }, 'ready');
    const done = runLoad({
      apiUrl: opts.api,
      rate: opts.rate,
      durationS: opts.duration,
      invalidRatio: opts['invalid-ratio'],
      progressIntervalS: opts['progress-interval'],
      signal: stop.signal,
      onProgress: (p) => process.stderr.write(`${formatProgress(p)}\n`),
    }).then(() => process.exit(0));
    return Promise.resolve(async () => {
      stop.abort();
      await done;
    });
  },
};

async function main(): Promise<void> {
  const [role, ...argv] = process.argv.slice(2);
  const start = role ? roles[role] : undefined;
  if (!start) {
    console.error(`usage: main.ts <${Object.keys(roles).join('|')}>`);
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(role!, config.logLevel);
  process.on('unhandledRejection', (err) => {
    log.error({ err: coerceError(err).message }, 'unhandled rejection');
  });
  const stop = await start(config, log, argv);
  if (role === 'migrate') {
    await stop();
    return;
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    stop()
      .then(() => tracing?.shutdown())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err: coerceError(err).message }, 'unclean stop');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => {
    shutdown('SIGTERM');
  });
  process.on('SIGINT', () => {
    shutdown('SIGINT');
  });
}

main().catch((err: unknown) => {
  console.error(coerceError(err).stack);
  process.exit(1);
});
