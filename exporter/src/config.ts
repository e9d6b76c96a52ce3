// The one place that reads the environment and the config file. Everything else takes the
// ValidatedConfig this returns, so validation cannot be skipped. Unknown keys and wrong types are
// errors that name the key (ConfigError; main exits with code 2).
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { envSchema } from './config/env.js';
import { fileSchema, type FileConfig } from './config/sections.js';
import { isMissing, nearestKey } from './config/suggest.js';
import { ConfigError, checkDistinctPorts, checkDistinctTokens } from './config/checks.js';

export { envSchema, ConfigError };

export type { FileConfig };

/** Variables that hold a secret (a token, a key, a URL with a password): each has a _FILE form. */
const SECRET_VARIABLES = [
  'ACKTRAIL_INGEST_TOKEN',
  'ACKTRAIL_API_TOKEN',
  'ACKTRAIL_OPERATOR_TOKEN',
  'ACKTRAIL_METRICS_TOKEN',
  'ACKTRAIL_DEAD_LETTER_KEY',
  'ACKTRAIL_DEAD_LETTER_KEYS',
  'DATABASE_URL',
  'ACKTRAIL_DATABASE_URL',
  'ACKTRAIL_DATABASE_READ_URL',
  'ACKTRAIL_DATABASE_MIGRATE_URL',
  'ACKTRAIL_DEAD_LETTERS_URL',
  'RABBITMQ_MANAGEMENT_URL',
  'CELERY_BROKER_URL',
] as const;

/**
 * The environment with each secret's `NAME_FILE` read into `NAME` (Docker and Kubernetes secrets
 * are files); setting both is an error, as is a file that cannot be read.
 */
function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (!file) continue;
    if (env[name] !== undefined)
      throw new ConfigError(`${name}_FILE: set ${name} or ${name}_FILE, not both`);
    try {
      out[name] = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(`${name}_FILE: cannot read ${file}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  return out;
}

const brand: unique symbol = Symbol('validated');

export interface ValidatedConfig extends FileConfig {
  readonly [brand]: true;
  port: number;
  /** A listener of its own for /metrics; null: on `port`. */
  metricsPort: number | null;
  /** A listener of its own for POST /v1/traces; null: on `port`. */
  ingestPort: number | null;
  /** OTLP/gRPC; null: off. */
  otlpGrpcPort: number | null;
  listenHost: string;
  shutdownTimeoutMs: number;
  /** Started by npm (npx, npm run): stop when npm's shell, the parent, goes (runtime/orphan.ts). */
  startedByNpm: boolean;
  /** How long an idle HTTP connection is kept, as advertised (closed KEEP_ALIVE_BUFFER later). */
  keepAliveTimeoutMs: number;
  logLevel: z.output<typeof envSchema>['LOG_LEVEL'];
  /** Whether the process starts itself again with acktrail's V8 and allocator settings (runtime/flags.ts). */
  runtimeFlags: boolean;
  /** Whether the threads that can wait run below the event loop (runtime/threads.ts). */
  lowerThreads: boolean;
  /** Whether refused bodies are thrown away by Node's HTTP parser (receiver/discard.ts). */
  parserDiscard: boolean;
  /** The pipeline's database, read with a read-only role; null turns the SQL collectors off. */
  databaseUrl: string | null;
  /** The journey store (read-write); defaults to databaseUrl. null turns journeys off. */
  storeUrl: string | null;
  /** The store reached directly (migrations, partition drops); null: storeUrl. */
  storeMigrateUrl: string | null;
  /** The variable storeUrl came from, for messages: ACKTRAIL_DATABASE_URL or DATABASE_URL. */
  storeUrlVariable: 'ACKTRAIL_DATABASE_URL' | 'DATABASE_URL';
  /** How the databases are reached: directly, or through a transaction pooler. */
  pooler: 'none' | 'transaction';
  /** A streaming replica of the store for reads; null: reads go to storeUrl. */
  storeReadUrl: string | null;
  /** Bearer token of /api/events; null: the journey API answers 401 to everyone. */
  apiToken: string | null;
  /** Bearer token that may also operate (dead-letter replay and discard); null: nobody may. */
  operatorToken: string | null;
  /** Bearer token /metrics and /status need; null: they are open to whoever reaches the port. */
  metricsToken: string | null;
  /** The key that seals parked dead letters; set whenever deadLetters.enabled. */
  deadLetterKey: Buffer | null;
  /** Earlier keys: what they sealed can still be opened (and resealed), nothing new is sealed. */
  deadLetterOldKeys: Buffer[];
  managementUrl: string;
  prometheusUrl: string;
  configFile: string | null;
}

/** How the process runs: its runtime flags, helper threads, parser, and whether npm started it. */
function processSwitches(env: z.output<typeof envSchema>) {
  return {
    startedByNpm: env.npm_command !== undefined,
    runtimeFlags: env.ACKTRAIL_RUNTIME_FLAGS === 'on',
    lowerThreads: env.ACKTRAIL_LOWER_THREADS === 'on',
    parserDiscard: env.ACKTRAIL_PARSER_DISCARD === 'on',
  };
}

function describe(error: z.ZodError, where: string, schema?: z.ZodType): string {
  const lines = error.issues.flatMap((i) => {
    const path = i.path.join('.');
    if (i.code === 'unrecognized_keys') {
      return i.keys.map((k) => {
        const near = schema ? nearestKey(schema, i.path, k) : null;
        return `${path ? `${path}.` : ''}${k}: unknown key${near ? ` (did you mean ${near}?)` : ''}`;
      });
    }
    if (isMissing(i)) return [`${path || '(root)'}: required`];
    return [`${path || '(root)'}: ${i.message}`];
  });
  return `invalid configuration in ${where}:\n  ${lines.join('\n  ')}`;
}

function readFileConfig(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`ACKTRAIL_CONFIG: cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return (path.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) ?? {};
  } catch (err) {
    throw new ConfigError(
      `ACKTRAIL_CONFIG: ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
}

/** The file's rules across keys, each naming the key at fault. */
const checkedFileSchema = fileSchema.superRefine((c, ctx) => {
  const aggregates = c.confirmations?.aggregates;
  if (aggregates?.status && aggregates.pendingValue === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['confirmations', 'aggregates', 'pendingValue'],
      message: 'needed with status: the status value of an aggregate still waiting',
    });
  if (c.journeys.maxInflightBytes * 4 > c.memory.budgetBytes)
    ctx.addIssue({
      code: 'custom',
      path: ['journeys', 'maxInflightBytes'],
      message: `must be at most a quarter of memory.budgetBytes (${c.memory.budgetBytes}): bodies in flight are parsed into about 2.5 times their size`,
    });
  if (c.aggregateCounts && !c.aggregateCounts.query && !c.confirmations?.aggregates.status)
    ctx.addIssue({
      code: 'custom',
      path: ['aggregateCounts'],
      message: 'needs aggregateCounts.query, or confirmations.aggregates.status to count',
    });
});

/** Validates the environment and the optional config file. Throws ConfigError naming each bad key. */
export function loadConfig(given: NodeJS.ProcessEnv = process.env): ValidatedConfig {
  const env = withSecretFiles(given);
  const known = Object.fromEntries(
    Object.keys(envSchema.shape).flatMap((k) => (env[k] === undefined ? [] : [[k, env[k]]])),
  );
  const e = envSchema.safeParse(known);
  if (!e.success) throw new ConfigError(describe(e.error, 'the environment'));
  const file = e.data.ACKTRAIL_CONFIG ?? null;
  const f = checkedFileSchema.safeParse(file ? readFileConfig(file) : {});
  if (!f.success) throw new ConfigError(describe(f.error, file ?? 'defaults', fileSchema));
  checkDistinctTokens(e.data, e.data.ACKTRAIL_INGEST_TOKEN ?? f.data.journeys.ingestToken);
  checkDistinctPorts(e.data);
  const storeUrl = e.data.ACKTRAIL_DATABASE_URL ?? e.data.DATABASE_URL;
  if (
    e.data.ACKTRAIL_DATABASE_POOLER === 'transaction' &&
    f.data.journeys.enabled &&
    storeUrl &&
    !e.data.ACKTRAIL_DATABASE_MIGRATE_URL
  )
    throw new ConfigError(
      'ACKTRAIL_DATABASE_MIGRATE_URL: needed with ACKTRAIL_DATABASE_POOLER=transaction: migrations and partition drops need a session of their own, on a direct connection to the store',
    );
  const deadLetterUrl = e.data.ACKTRAIL_DEAD_LETTERS_URL ?? f.data.deadLetters.url;
  const deadLetterKey = f.data.deadLetters.enabled
    ? parseKey(e.data.ACKTRAIL_DEAD_LETTER_KEY)
    : null;
  if (f.data.deadLetters.enabled && !deadLetterUrl)
    throw new ConfigError(
      'deadLetters.url: needed when deadLetters.enabled (or ACKTRAIL_DEAD_LETTERS_URL): acktrail parks dead letters with a broker user of its own',
    );
  if (f.data.deadLetters.enabled && (!f.data.journeys.enabled || !storeUrl))
    throw new ConfigError(
      'deadLetters.enabled: parked dead letters live in the journey store: set ACKTRAIL_DATABASE_URL and keep journeys.enabled',
    );
  if (
    f.data.deadLetters.enabled &&
    f.data.deadLetters.queues.length === 0 &&
    !f.data.deadLetters.allDeadLetterQueues
  )
    throw new ConfigError(
      'deadLetters.queues: name the dead-letter queues to park, or set deadLetters.allDeadLetterQueues',
    );

  const celeryUrl = e.data.CELERY_BROKER_URL ?? f.data.celery.url;
  if (
    f.data.celery.enabled &&
    celeryUrl.startsWith('sentinel:') &&
    f.data.celery.redis.masterName === undefined
  )
    throw new ConfigError(
      "celery.redis.masterName: a sentinel:// broker needs the master's name (kombu's master_name)",
    );

  const management = new URL(e.data.RABBITMQ_MANAGEMENT_URL);
  const prometheusUrl =
    f.data.rabbitmq.prometheusUrl ?? `${management.protocol}//${management.hostname}:15692`;
  return {
    ...f.data,
    celery: { ...f.data.celery, url: celeryUrl },
    deadLetters: { ...f.data.deadLetters, url: deadLetterUrl },
    journeys: {
      ...f.data.journeys,
      ingestToken: e.data.ACKTRAIL_INGEST_TOKEN ?? f.data.journeys.ingestToken,
    },
    [brand]: true,
    port: e.data.ACKTRAIL_PORT,
    metricsPort: e.data.ACKTRAIL_METRICS_PORT ?? null,
    ingestPort: e.data.ACKTRAIL_INGEST_PORT ?? null,
    otlpGrpcPort: e.data.ACKTRAIL_OTLP_GRPC_PORT ?? null,
    listenHost: e.data.ACKTRAIL_LISTEN_HOST,
    shutdownTimeoutMs: e.data.ACKTRAIL_SHUTDOWN_TIMEOUT_SECONDS * 1000,
    keepAliveTimeoutMs: e.data.ACKTRAIL_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    logLevel: e.data.LOG_LEVEL,
    ...processSwitches(e.data),
    databaseUrl: e.data.DATABASE_URL ?? null,
    storeUrl: f.data.journeys.enabled ? (storeUrl ?? null) : null,
    storeUrlVariable: e.data.ACKTRAIL_DATABASE_URL ? 'ACKTRAIL_DATABASE_URL' : 'DATABASE_URL',
    storeReadUrl: f.data.journeys.enabled ? (e.data.ACKTRAIL_DATABASE_READ_URL ?? null) : null,
    storeMigrateUrl: f.data.journeys.enabled
      ? (e.data.ACKTRAIL_DATABASE_MIGRATE_URL ?? null)
      : null,
    pooler: e.data.ACKTRAIL_DATABASE_POOLER,
    apiToken: e.data.ACKTRAIL_API_TOKEN ?? null,
    operatorToken: e.data.ACKTRAIL_OPERATOR_TOKEN ?? null,
    metricsToken: e.data.ACKTRAIL_METRICS_TOKEN ?? null,
    deadLetterKey,
    deadLetterOldKeys: f.data.deadLetters.enabled
      ? (e.data.ACKTRAIL_DEAD_LETTER_KEYS ?? '')
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean)
          .map((k) => parseKey(k, 'ACKTRAIL_DEAD_LETTER_KEYS'))
      : [],
    managementUrl: e.data.RABBITMQ_MANAGEMENT_URL,
    prometheusUrl,
    configFile: file,
  };
}

/**
 * The dead-letter key: 32 bytes as base64 or hex. Parking without one would keep personal data in
 * the clear, so it does not start.
 */
function parseKey(value: string | undefined, name = 'ACKTRAIL_DEAD_LETTER_KEY'): Buffer {
  const help = 'for example: openssl rand -base64 32';
  if (!value)
    throw new ConfigError(
      `${name}: needed when deadLetters.enabled: parked bodies hold personal data and are stored encrypted (${help})`,
    );
  const key = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : Buffer.from(value, 'base64');
  if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(value) && key.toString('base64') !== value))
    throw new ConfigError(`${name}: must be 32 bytes, base64 or 64 hex digits (${help})`);
  return key;
}
