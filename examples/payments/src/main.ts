// Entry point of every process of the payments pipeline: `tsx src/main.ts <role>`.
// Roles: migrate, api, relay, ledger, receipts, audit, loadgen. JSON log lines; "ready" when up.
// Tracing (the stock SDK) starts first, before amqplib is loaded.
import { tracing } from './tracing.js';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { ChannelModel } from 'amqplib';
import { createApp } from './api.js';
import { connect } from './broker.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startAudit, startLedger, startReceipts } from './consumers.js';
import { createPool, migrate } from './db.js';
import { createLogger, messageOf, type Logger } from './log.js';
import { Relay } from './relay.js';
import { runLoad } from './loadgen.js';

type Stop = () => Promise<void>;

async function withBroker(config: Config, log: Logger, start: (c: ChannelModel) => Promise<Stop>) {
  const conn = await connect(config, log);
  const stop = await start(conn);
  return async () => {
    await stop();
    await conn.close();
  };
}

const roles: Record<string, (config: Config, log: Logger) => Promise<Stop>> = {
  async migrate(config, log) {
    log.info({ applied: await migrate(config.databaseUrl) }, 'ready');
    return () => Promise.resolve();
  },
  async api(config, log) {
    const pool = createPool(config.databaseUrl);
    const server = createServer(createApp(pool, log)).listen(config.apiPort, config.listenHost);
    await once(server, 'listening');
    const addr = server.address();
    log.info({ port: typeof addr === 'object' && addr ? addr.port : 0 }, 'ready');
    return async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool.end();
    };
  },
  relay: (config, log) =>
    withBroker(config, log, async (conn) => {
      const pool = createPool(config.databaseUrl, 2);
      const relay = await Relay.start(pool, conn, log, config.relayPollIntervalMs);
      log.info('ready');
      return async () => {
        await relay.stop();
        await pool.end();
      };
    }),
  ledger: (config, log) =>
    withBroker(config, log, async (conn) => {
      const pool = createPool(config.databaseUrl);
      await startLedger(conn, pool, config, log);
      log.info('ready');
      return () => pool.end();
    }),
  receipts: (config, log) =>
    withBroker(config, log, async (conn) => {
      await startReceipts(conn, log);
      log.info('ready');
      return () => Promise.resolve();
    }),
  loadgen(config, log) {
    const stop = new AbortController();
    runLoad(config.loadgen.apiUrl, config.loadgen.rate, log, stop.signal);
    log.info({ rate: config.loadgen.rate }, 'ready');
    return Promise.resolve(() => {
      stop.abort();
      return Promise.resolve();
    });
  },
  audit: (config, log) =>
    withBroker(config, log, async (conn) => {
      await startAudit(conn, log);
      log.info('ready');
      return () => Promise.resolve();
    }),
};

async function main(): Promise<void> {
  const role = process.argv[2];
  const start = role ? roles[role] : undefined;
  if (!role || !start) {
    console.error(`usage: main.ts <${Object.keys(roles).join('|')}>`);
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(2);
  }
  const log = createLogger(role, config.logLevel);
  const stop = await start(config, log);
  if (role === 'migrate') return;
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    stop()
      .then(() => tracing?.shutdown())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err: messageOf(err) }, 'unclean stop');
        process.exit(1);
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
