// The configuration for a command: the environment's, with --config FILE in place of
// ACKTRAIL_CONFIG. A bad one prints what is wrong, naming the key, and exits 2.
import { ConfigError, loadConfig, type ValidatedConfig } from '../config.js';
import { err as printErr } from './print.js';

export function configOrExit(file?: string): ValidatedConfig {
  try {
    return loadConfig(file === undefined ? process.env : { ...process.env, ACKTRAIL_CONFIG: file });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    printErr(err.message);
    process.exit(2);
  }
}
