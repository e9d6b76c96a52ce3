// `npm run exporter`: validates the configuration (exit 2 naming the bad key), then serves.
import { once } from 'node:events';
import { ConfigError, loadConfig, type ValidatedConfig } from './config.js';
import { coerceError, createLogger } from './log.js';
import { createExporter } from './server.js';

let config: ValidatedConfig;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}

const log = createLogger(config.logLevel);
process.on('unhandledRejection', (err) => {
  log.error({ err: coerceError(err).message }, 'unhandled rejection');
});
const exporter = createExporter(config, log);
const server = exporter.app.listen(config.port);
await once(server, 'listening');
const address = server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
log.info({ port, config: config.configFile ?? 'defaults' }, 'ready');

const stop = () => {
  log.info('stopping');
  server.close();
  server.closeAllConnections();
  exporter
    .close()
    .then(() => process.exit(0))
    .catch(() => process.exit(1));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
