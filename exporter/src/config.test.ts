import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './config.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'acktrail-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

test("defaults name no pipeline's tables: the SQL sources run only when configured", () => {
  const c = loadConfig({});
  assert.equal(c.port, 9470);
  assert.equal(c.databaseUrl, null);
  assert.equal(c.outbox, undefined);
  assert.equal(c.confirmations, undefined);
  assert.equal(c.provider, undefined);
  assert.deepEqual(c.journeys.words, {
    aggregate: 'aggregate',
    done: 'processed',
    results: { done: [], alreadyDone: [], stale: [] },
  });
  assert.equal(c.prometheusUrl, 'http://127.0.0.1:15692');
});

test("the reference pipeline's example config is valid and names its own tables", () => {
  const c = loadConfig({ ACKTRAIL_CONFIG: join(REPO, 'examples/orders/acktrail.yaml') });
  assert.equal(c.outbox?.tables[0]?.table, 'outbox_events');
  assert.equal(c.confirmations?.results.table, 'order_confirmations');
  assert.equal(c.provider?.eventId, 'event_id');
  assert.deepEqual(c.journeys.words, {
    aggregate: 'order',
    done: 'confirmation sent',
    results: { done: ['sent'], alreadyDone: ['already_done'], stale: [] },
  });
});

test('a YAML file names the tables and their columns; the other keys keep their defaults', () => {
  const path = file(
    'ok.yaml',
    'outbox:\n  tables:\n    - table: events.outbox\n      id: uuid\n      createdAt: made_at\n      publishedAt: sent_at\nrabbitmq:\n  vhosts: [prod]\n',
  );
  const c = loadConfig({ ACKTRAIL_CONFIG: path });
  assert.deepEqual(c.outbox?.tables, [
    { table: 'events.outbox', id: 'uuid', createdAt: 'made_at', publishedAt: 'sent_at' },
  ]);
  assert.deepEqual(c.rabbitmq.vhosts, ['prod']);
  assert.equal(c.rabbitmq.statsIntervalSeconds, 60);
});

test("a pipeline's columns have no defaults: a missing one is an error that names it", () => {
  const message = errorOf(() =>
    loadConfig({
      ACKTRAIL_CONFIG: file('columns.yaml', 'outbox:\n  tables:\n    - table: events.outbox\n'),
    }),
  );
  for (const key of ['id', 'createdAt', 'publishedAt'])
    assert.match(message, new RegExp(`outbox\\.tables\\.0\\.${key}: `));
  const status = errorOf(() =>
    loadConfig({
      ACKTRAIL_CONFIG: file(
        'status.yaml',
        'confirmations:\n  aggregates: {table: a, id: id, createdAt: at, status: state}\n  results: {table: r, eventId: e, aggregateId: a, createdAt: at}\n',
      ),
    }),
  );
  assert.match(status, /confirmations\.aggregates\.pendingValue: needed with status/);
});

test('unknown keys are errors that name the key', () => {
  const path = file('unknown.json', JSON.stringify({ rabbitmq: { vhost: ['x'] }, outbx: {} }));
  const message = errorOf(() => loadConfig({ ACKTRAIL_CONFIG: path }));
  assert.match(message, /rabbitmq\.vhost: unknown key \(did you mean vhosts\?\)/);
  assert.match(message, /outbx: unknown key \(did you mean outbox\?\)/);
});

test('a typo gets the nearest key, a far-off name none, and a missing key says required', () => {
  const typo = file('typo.json', JSON.stringify({ rabbitmq: { statsIntervalSecond: 5 } }));
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_CONFIG: typo })),
    /rabbitmq\.statsIntervalSecond: unknown key \(did you mean statsIntervalSeconds\?\)/,
  );
  const far = file('far.json', JSON.stringify({ rabbitmq: { colour: 'red' } }));
  const farMessage = errorOf(() => loadConfig({ ACKTRAIL_CONFIG: far }));
  assert.match(farMessage, /rabbitmq\.colour: unknown key$/m);
  const missing = file('missing.json', JSON.stringify({ outbox: { tables: [{}] } }));
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_CONFIG: missing })),
    /outbox\.tables\.0\.table: required/,
  );
});

test('wrong types and unsafe names are errors that name the key', () => {
  const path = file(
    'types.yaml',
    'provider:\n  maxProviders: many\noutbox:\n  tables:\n    - table: "outbox; DROP TABLE orders"\n',
  );
  const message = errorOf(() => loadConfig({ ACKTRAIL_CONFIG: path }));
  assert.match(message, /provider\.maxProviders: /);
  assert.match(message, /outbox\.tables\.0\.table: must be a plain SQL name/);
});

test('a lookup that is not one SELECT of $1 alone, or is named twice, is refused by its key', () => {
  const lookups = (query: string, name = 'mail') =>
    `lookups:\n  - name: ${name}\n    query: "${query}"\n    returns: aggregate\n`;
  const cases: [string, RegExp][] = [
    [lookups('SELECT id FROM orders'), /lookups\.0\.query: must use \$1 for the value/],
    [
      lookups('SELECT id FROM orders WHERE a = $1 AND b = $2'),
      /lookups\.0\.query: must use no parameter but \$1/,
    ],
    [
      lookups('SELECT id FROM orders WHERE a = $1; DELETE FROM orders'),
      /lookups\.0\.query: must be one statement/,
    ],
    [lookups('SELECT $1', 'Mail Lookup'), /lookups\.0\.name: must be lower-case/],
  ];
  for (const [text, message] of cases)
    assert.match(
      errorOf(() => loadConfig({ ACKTRAIL_CONFIG: file('lookup.yaml', text) })),
      message,
    );
  const twice = `${lookups('SELECT $1')}${lookups('SELECT $1').replace('lookups:\n', '')}`;
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_CONFIG: file('twice.yaml', twice) })),
    /lookups\.1\.name: mail is named twice/,
  );
});

test('bad regular expressions and environment values name their key', () => {
  assert.match(
    errorOf(() =>
      loadConfig({ ACKTRAIL_CONFIG: file('re.yaml', 'rabbitmq:\n  include: ["("]\n') }),
    ),
    /rabbitmq\.include\.0: must be a regular expression in RE2 syntax/,
  );
  // A back-reference is a regular expression V8 takes, but no linear-time engine does.
  assert.match(
    errorOf(() =>
      loadConfig({
        ACKTRAIL_CONFIG: file(
          're2.yaml',
          'rabbitmq:\n  roles:\n    - { match: "(a)\\\\1", role: work }\n',
        ),
      }),
    ),
    /rabbitmq\.roles\.0\.match: must be a regular expression in RE2 syntax/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_PORT: 'eighty' })),
    /ACKTRAIL_PORT/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_CONFIG: join(dir, 'missing.yaml') })),
    /ACKTRAIL_CONFIG: cannot read/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_CONFIG: file('broken.yaml', 'rabbitmq: [\n') })),
    /ACKTRAIL_CONFIG: .* is not valid YAML/,
  );
});

test('tokens: short ones and the example values of the docs are refused by name', () => {
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_API_TOKEN: 'short' })),
    /ACKTRAIL_API_TOKEN: must be at least 16/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_API_TOKEN: 'local-demo-token-change-me' })),
    /ACKTRAIL_API_TOKEN: is an example value/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_INGEST_TOKEN: 'changeme-changeme-changeme' })),
    /ACKTRAIL_INGEST_TOKEN: is an example value/,
  );
  assert.match(
    errorOf(() =>
      loadConfig({ ACKTRAIL_CONFIG: file('token.yaml', 'journeys:\n  ingestToken: short\n') }),
    ),
    /journeys\.ingestToken: must be at least 16/,
  );
  const ok = loadConfig({ ACKTRAIL_INGEST_TOKEN: 'a-real-token-0123456789' });
  assert.equal(ok.journeys.ingestToken, 'a-real-token-0123456789');
  assert.equal(ok.listenHost, '127.0.0.1', 'loopback unless told otherwise');
});

test('the exporter exits with code 2 and names the key', async () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const path = file('exit.yaml', 'confirmations:\n  buckets: fast\n');
  const run = promisify(execFile);
  await assert.rejects(
    run(process.execPath, ['--import', 'tsx', main], {
      env: { PATH: process.env.PATH, ACKTRAIL_CONFIG: path },
    }),
    (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 2);
      assert.match(err.stderr, /confirmations\.buckets: /);
      return true;
    },
  );
});

test('dead-letter parking refuses to start without its key, its broker URL, a store or its queues', () => {
  const parking = file(
    'parking.yaml',
    'deadLetters:\n  enabled: true\n  url: amqp://parker:secret@127.0.0.1:5672/%2F\n  queues: [{ queue: jobs.dlq }]\n',
  );
  const store = { ACKTRAIL_DATABASE_URL: 'postgres://a@127.0.0.1/db', ACKTRAIL_CONFIG: parking };
  assert.match(
    errorOf(() => loadConfig(store)),
    /ACKTRAIL_DEAD_LETTER_KEY: needed when deadLetters.enabled.*encrypted/,
  );
  assert.match(
    errorOf(() => loadConfig({ ...store, ACKTRAIL_DEAD_LETTER_KEY: 'c2hvcnQ=' })),
    /ACKTRAIL_DEAD_LETTER_KEY: must be 32 bytes/,
  );
  const key = Buffer.alloc(32, 7);
  const ok = loadConfig({ ...store, ACKTRAIL_DEAD_LETTER_KEY: key.toString('base64') });
  assert.ok(ok.deadLetterKey?.equals(key));
  assert.ok(
    loadConfig({ ...store, ACKTRAIL_DEAD_LETTER_KEY: key.toString('hex') }).deadLetterKey?.equals(
      key,
    ),
  );
  assert.match(
    errorOf(() =>
      loadConfig({ ACKTRAIL_CONFIG: parking, ACKTRAIL_DEAD_LETTER_KEY: key.toString('hex') }),
    ),
    /deadLetters.enabled: parked dead letters live in the journey store/,
  );
  const noUrl = file(
    'parking-no-url.yaml',
    'deadLetters:\n  enabled: true\n  queues: [{ queue: q }]\n',
  );
  assert.match(
    errorOf(() =>
      loadConfig({
        ...store,
        ACKTRAIL_CONFIG: noUrl,
        ACKTRAIL_DEAD_LETTER_KEY: key.toString('hex'),
      }),
    ),
    /deadLetters.url: needed/,
  );
  const noQueues = file(
    'parking-no-queues.yaml',
    'deadLetters:\n  enabled: true\n  url: amqp://p:s@127.0.0.1:5672/%2F\n',
  );
  assert.match(
    errorOf(() =>
      loadConfig({
        ...store,
        ACKTRAIL_CONFIG: noQueues,
        ACKTRAIL_DEAD_LETTER_KEY: key.toString('hex'),
      }),
    ),
    /deadLetters.queues: name the dead-letter queues/,
  );
  // Off (the default), no key is asked for.
  assert.equal(loadConfig({}).deadLetterKey, null);
});

test('the operator token must differ from the read token and the ingest token', () => {
  const token = 'the-same-token-0123456789';
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_API_TOKEN: token, ACKTRAIL_OPERATOR_TOKEN: token })),
    /ACKTRAIL_OPERATOR_TOKEN: must differ from ACKTRAIL_API_TOKEN/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_INGEST_TOKEN: token, ACKTRAIL_OPERATOR_TOKEN: token })),
    /ACKTRAIL_OPERATOR_TOKEN: must differ from the ingest token/,
  );
  const c = loadConfig({ ACKTRAIL_API_TOKEN: token, ACKTRAIL_OPERATOR_TOKEN: `${token}-op` });
  assert.equal(c.operatorToken, `${token}-op`);
});

test('the ingest token must differ from the read token: an SDK that sends spans reads nothing', () => {
  const token = 'the-same-token-0123456789';
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_API_TOKEN: token, ACKTRAIL_INGEST_TOKEN: token })),
    /ACKTRAIL_INGEST_TOKEN: must differ from ACKTRAIL_API_TOKEN/,
  );
  const c = loadConfig({ ACKTRAIL_API_TOKEN: token, ACKTRAIL_INGEST_TOKEN: `${token}-in` });
  assert.equal(c.journeys.ingestToken, `${token}-in`);
});

test('the metrics token must differ from every other token: a scraper reads nothing more', () => {
  const token = 'the-same-token-0123456789';
  for (const other of ['ACKTRAIL_API_TOKEN', 'ACKTRAIL_OPERATOR_TOKEN', 'ACKTRAIL_INGEST_TOKEN'])
    assert.match(
      errorOf(() => loadConfig({ [other]: token, ACKTRAIL_METRICS_TOKEN: token })),
      /ACKTRAIL_METRICS_TOKEN: must differ from the API, operator and ingest tokens/,
      other,
    );
  const c = loadConfig({ ACKTRAIL_API_TOKEN: token, ACKTRAIL_METRICS_TOKEN: `${token}-m` });
  assert.equal(c.metricsToken, `${token}-m`);
  assert.equal(loadConfig({}).metricsToken, null);
});

test('every secret variable also has a _FILE form', () => {
  const tokenFile = file('operator-token', 'operator-token-from-a-file-01\n');
  const urlFile = file('store-url', 'postgres://acktrail:s3cret@db:5432/acktrail\n');
  const c = loadConfig({
    ACKTRAIL_OPERATOR_TOKEN_FILE: tokenFile,
    ACKTRAIL_DATABASE_URL_FILE: urlFile,
  });
  assert.equal(c.operatorToken, 'operator-token-from-a-file-01');
  assert.equal(c.storeUrl, 'postgres://acktrail:s3cret@db:5432/acktrail');
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_API_TOKEN_FILE: join(dir, 'missing') })),
    /ACKTRAIL_API_TOKEN_FILE: cannot read/,
  );
  assert.match(
    errorOf(() =>
      loadConfig({ ACKTRAIL_API_TOKEN_FILE: tokenFile, ACKTRAIL_API_TOKEN: 'x'.repeat(20) }),
    ),
    /set ACKTRAIL_API_TOKEN or ACKTRAIL_API_TOKEN_FILE, not both/,
  );
});

test('listeners: each port of its own, named when two collide; unset ones stay on the main port', () => {
  const c = loadConfig({});
  assert.deepEqual([c.metricsPort, c.ingestPort, c.otlpGrpcPort], [null, null, null]);
  const set = loadConfig({ ACKTRAIL_METRICS_PORT: '9471', ACKTRAIL_OTLP_GRPC_PORT: '4317' });
  assert.deepEqual([set.metricsPort, set.ingestPort, set.otlpGrpcPort], [9471, null, 4317]);
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_INGEST_PORT: '9470' })),
    /ACKTRAIL_INGEST_PORT: 9470 is already ACKTRAIL_PORT/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_METRICS_PORT: '4317', ACKTRAIL_OTLP_GRPC_PORT: '4317' })),
    /ACKTRAIL_OTLP_GRPC_PORT: 4317 is already ACKTRAIL_METRICS_PORT/,
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_OTLP_GRPC_PORT: 'grpc' })),
    /ACKTRAIL_OTLP_GRPC_PORT/,
  );
});

test('idle connections outlive a proxy in front (60 s idle at ingress-nginx and AWS ALB) unless told otherwise', () => {
  assert.ok(loadConfig({}).keepAliveTimeoutMs > 60_000);
  assert.equal(loadConfig({ ACKTRAIL_KEEP_ALIVE_TIMEOUT_SECONDS: '5' }).keepAliveTimeoutMs, 5000);
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_KEEP_ALIVE_TIMEOUT_SECONDS: '0' })),
    /ACKTRAIL_KEEP_ALIVE_TIMEOUT_SECONDS/,
  );
});

test('the memory budget: at least 64 MiB, and at least four times the OTLP bytes in flight', () => {
  assert.equal(loadConfig({}).memory.budgetBytes, 512 * 1024 * 1024);
  const small = file('memory-small.yaml', 'memory:\n  budgetBytes: 1000000\n');
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_CONFIG: small })),
    /memory\.budgetBytes: /,
  );
  const tight = file(
    'memory-tight.yaml',
    'memory:\n  budgetBytes: 134217728\njourneys:\n  maxInflightBytes: 67108864\n',
  );
  assert.match(
    errorOf(() => loadConfig({ ACKTRAIL_CONFIG: tight })),
    /journeys\.maxInflightBytes: must be at most a quarter of memory\.budgetBytes/,
  );
});
