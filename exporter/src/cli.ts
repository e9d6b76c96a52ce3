#!/usr/bin/env node
// The `acktrail` command: serve, migrate, check-config, doctor, schema, dead-letters reseal. `acktrail <command> --help` says more.
import { parseArgs } from 'node:util';
import { configOrExit } from './cli/load.js';
import { masked } from './cli/mask.js';
import { err, out } from './cli/print.js';
import { docsUrl } from './docs.js';
import { VERSION } from './version.js';

const HELP: Record<string, string> = {
  '': `acktrail ${VERSION}: the exporter and journey store of acktrail

Usage: acktrail <command> [options]

Commands:
  serve               serve /metrics, /v1/traces and the journey API
  migrate             create or update the journey store's schema, then exit
  check-config FILE   validate a configuration file and print the effective configuration
  doctor              check every configured source as serve would use it, and say the fix
  schema              print the configuration file's JSON Schema (for editors)
  dead-letters reseal seal parked dead letters again under the current key (after a rotation)

The environment configures each command: ACKTRAIL_CONFIG, DATABASE_URL, ACKTRAIL_DATABASE_URL,
ACKTRAIL_API_TOKEN, ACKTRAIL_INGEST_TOKEN, RABBITMQ_MANAGEMENT_URL, ... (every variable and key:
${docsUrl('configuration.md')}). Run acktrail <command> --help for the options of each.`,
  serve: `Usage: acktrail serve [--config FILE]

Serves Prometheus metrics (/metrics), OTLP/HTTP traces (/v1/traces), the journey API (/api/*),
/healthz, /readyz and /status on ACKTRAIL_LISTEN_HOST:ACKTRAIL_PORT (127.0.0.1:9470);
/metrics and /v1/traces on ports of their own with ACKTRAIL_METRICS_PORT and
ACKTRAIL_INGEST_PORT, OTLP/gRPC with ACKTRAIL_OTLP_GRPC_PORT (4317). Migrates the journey
store itself unless another replica holds the lock. SIGTERM drains in-flight requests.

Options:
  --config FILE   the configuration file (default: ACKTRAIL_CONFIG, else the defaults)
  -h, --help      this text`,
  migrate: `Usage: acktrail migrate [--config FILE]

Applies the journey store's migrations (the SQL files shipped with the package, each once, under
an advisory lock) to ACKTRAIL_DATABASE_URL, else DATABASE_URL, and exits: for deploys that
migrate in a step of their own. Prints the migrations it applied.

Options:
  --config FILE   the configuration file (journeys.enabled: false refuses)
  -h, --help      this text`,
  'dead-letters': `Usage: acktrail dead-letters reseal [--config FILE]

After a key rotation (the new key in ACKTRAIL_DEAD_LETTER_KEY, the old ones, comma-separated, in
ACKTRAIL_DEAD_LETTER_KEYS), seals every parked dead letter again under the current key, printing
its progress; then the old keys can be removed. Rows sealed with a key not given are left as they
are and counted (exit 1). Safe beside running exporters, and to run again.

Options:
  --config FILE   the configuration file (deadLetters.enabled)
  -h, --help      this text`,
  schema: `Usage: acktrail schema

Prints the JSON Schema of the configuration file (ACKTRAIL_CONFIG): every key with its type,
bounds, default and description, for completion and checks in an editor
(\`# yaml-language-server: $schema=acktrail.schema.json\` on a YAML file's first line).

Options:
  -h, --help      this text`,
  doctor: `Usage: acktrail doctor [--config FILE]

Checks what the configuration names, as \`acktrail serve\` will use it, each step within 5 s
and each source within 15 s (one that has not answered by then is a FAIL of its own): the
management API (credentials, the user's tags, the vhosts), the rabbitmq_prometheus endpoints and
the node each answers as, the pipeline's database (read-only role), the journey store (its
migrations), Celery's broker and event exchange, parking's broker user and queues, and the ports
to listen on. One line each (ok, warn, FAIL) with the fix. Exit 1 when something fails.

Options:
  --config FILE   the configuration file (default: ACKTRAIL_CONFIG, else the defaults)
  -h, --help      this text`,
  'check-config': `Usage: acktrail check-config FILE

Validates FILE with the environment as \`acktrail serve\` would and prints the effective
configuration as JSON, tokens, secrets and URL passwords masked. Exit 0 when valid; exit 2 with
the key that is wrong otherwise.

Options:
  -h, --help      this text`,
};

function usage(command: string, code: number, problem?: string): never {
  if (problem) err(`acktrail${command ? ` ${command}` : ''}: ${problem}\n`);
  (code === 0 ? out : err)(HELP[command]!);
  process.exit(code);
}

const [command = '', ...rest] = process.argv.slice(2);
if (command === '' || command === 'help' || command === '--help' || command === '-h')
  usage(rest[0] && rest[0] in HELP ? rest[0] : '', 0);
if (command === '--version' || command === '-v') {
  out(VERSION);
  process.exit(0);
}
if (!(command in HELP)) usage('', 2, `unknown command "${command}"`);

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    args: rest,
    allowPositionals: command === 'check-config' || command === 'dead-letters',
    options: {
      help: { type: 'boolean', short: 'h' },
      ...(command === 'check-config' ? {} : { config: { type: 'string' as const } }),
    },
  });
}
try {
  args = parse();
} catch (err) {
  usage(command, 2, (err as Error).message);
}
if (args.values.help) usage(command, 0);
const file = args.values.config as string | undefined;

switch (command) {
  case 'serve': {
    const { serve } = await import('./cli/serve.js');
    await serve(configOrExit(file));
    break;
  }
  case 'migrate': {
    const config = configOrExit(file);
    if (!config.storeUrl)
      usage(
        command,
        2,
        config.journeys.enabled
          ? 'no journey store: set ACKTRAIL_DATABASE_URL or DATABASE_URL'
          : 'journeys.enabled is false in the configuration: there is no store to migrate',
      );
    const { migrateStore } = await import('./journeys/store/index.js');
    try {
      const applied = await migrateStore(config.storeMigrateUrl ?? config.storeUrl);
      out(applied.length ? `applied ${applied.join(', ')}` : 'the journey store is up to date');
    } catch (e) {
      err(`acktrail migrate: ${(e as Error).message}`);
      process.exit(1);
    }
    break;
  }
  case 'dead-letters': {
    if (args.positionals[0] !== 'reseal' || args.positionals.length !== 1)
      usage(command, 2, 'the one subcommand is reseal');
    const config = configOrExit(file);
    if (!config.deadLetterKey || !config.storeUrl)
      usage(command, 2, 'deadLetters.enabled is false: nothing is sealed');
    const [{ default: pg }, { reseal }] = await Promise.all([
      import('pg'),
      import('./deadletters/store/reseal.js'),
    ]);
    const pool = new pg.Pool({ connectionString: config.storeUrl, max: 1 });
    pool.on('error', () => undefined); // an idle connection lost: the next query says so
    try {
      const done = await reseal(pool, config.deadLetterKey, config.deadLetterOldKeys, (p) => {
        err(`resealed ${p.resealed} of ${p.total}`);
      });
      out(
        `resealed ${done.resealed} dead letters under the current key${done.unknownKey ? `; ${done.unknownKey} sealed with a key not given (left as they are)` : ''}`,
      );
      if (done.unknownKey > 0) process.exitCode = 1;
    } catch (e) {
      err(`acktrail dead-letters reseal: ${(e as Error).message}`);
      process.exitCode = 1;
    } finally {
      await pool.end();
    }
    break;
  }
  case 'doctor': {
    const { diagnose, report } = await import('./cli/doctor/index.js');
    const findings = await diagnose(configOrExit(file));
    out(report(findings));
    // A check given up on may still hold a socket or a library's retry timer: exit, do not wait.
    process.exit(findings.some((f) => f.verdict === 'fail') ? 1 : 0);
    break;
  }
  case 'schema': {
    const { readFileSync } = await import('node:fs');
    process.stdout.write(readFileSync(new URL('../acktrail.schema.json', import.meta.url), 'utf8'));
    break;
  }
  case 'check-config': {
    if (args.positionals.length !== 1) usage(command, 2, 'give exactly one FILE');
    const config = configOrExit(args.positionals[0]);
    out(JSON.stringify(masked(config), null, 2));
    break;
  }
}
