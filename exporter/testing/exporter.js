// Runs the exporter in-process for a test, on a free port, with its own config file and a log
// that the test can read.
import { MALLOC_ENV, NODE_FLAGS } from '../src/runtime/flags.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { pino } from 'pino';
import pg from 'pg';
import { ADMIN_DATABASE_URL, REPO_ROOT, RoleProcess, databaseUrl, waitFor, } from '@acktrail/testing';
// A store beside the reference pipeline's tables: the tests that read both use one database.
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { loadConfig } from '../src/config.js';
import { parseSamples } from '../src/exposition/text.js';
import { createExporter } from '../src/server.js';
import { listen } from '../src/listen.js';
export class TestExporter {
    exporter;
    servers;
    ports;
    logs = [];
    /** The main listener's URL. */
    url;
    constructor(exporter, servers, 
    /** Every listener's port (those of their own only when configured). */
    ports, logs) {
        this.exporter = exporter;
        this.servers = servers;
        this.ports = ports;
        this.logs = logs;
        this.url = `http://127.0.0.1:${ports.main}`;
    }
    static async start(env, fileConfig = {}) {
        const config = loadConfig({
            ACKTRAIL_CONFIG: writeConfig(withTestBudget(fileConfig)),
            ACKTRAIL_PORT: '0',
            ...env,
        });
        const logs = [];
        const stream = new Writable({
            write(chunk, _enc, done) {
                logs.push(JSON.parse(chunk.toString()));
                done();
            },
        });
        const exporter = createExporter(config, pino({ level: 'info' }, stream));
        const { servers, ports } = await listen(exporter, config, '127.0.0.1');
        return new TestExporter(exporter, servers, ports, logs);
    }
    /**
     * An exporter with a journey store of its own (a new database, dropped on close) and the
     * broker collectors off.
     */
    static async withStore(env = {}, fileConfig = {}) {
        const store = await createTestDatabase();
        const exporter = await TestExporter.start({ ACKTRAIL_DATABASE_URL: store.url, ...env }, { rabbitmq: { enabled: false }, ...fileConfig });
        exporter.onClose = () => store.drop();
        await exporter.exporter.ready;
        return Object.assign(exporter, { storeUrl: store.url });
    }
    onClose = () => Promise.resolve();
    /** GET /metrics, as Prometheus does; promtool checks the same text in metrics.int.test.ts. */
    async scrape() {
        const res = await fetch(`${this.url}/metrics`);
        if (res.status !== 200)
            throw new Error(`/metrics answered ${res.status}`);
        return new Scrape(await res.text());
    }
    /**
     * Polls `GET /api/events/{eventId}` with `token` until `check` holds for the journey; the error
     * names `what` and shows the last journey read.
     */
    async journey(token, eventId, what, check, timeoutMs = 30_000) {
        let last;
        return waitFor(what, async () => {
            const res = await fetch(`${this.url}/api/events/${encodeURIComponent(eventId)}`, {
                headers: { authorization: `Bearer ${token}` },
            });
            last = res.status === 200 ? await res.json() : res.status;
            return res.status === 200 && check(last) ? last : null;
        }, { timeoutMs }).catch((err) => {
            throw new Error(`${err.message}; last journey: ${JSON.stringify(last)}`);
        });
    }
    closed = false;
    /** Stops serving and closes the pools; a second call does nothing. */
    async close() {
        if (this.closed)
            return;
        this.closed = true;
        for (const server of this.servers) {
            server.close();
            server.closeAllConnections();
        }
        await this.exporter.close();
        await this.onClose();
    }
}
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `over` on top of `base`, object by object (arrays and values replaced whole). */
export function merge(base, over) {
    const out = { ...base };
    for (const [k, v] of Object.entries(over))
        out[k] = isObject(v) && isObject(out[k]) ? merge(out[k], v) : v;
    return out;
}
/**
 * An example pipeline's tables, columns, words and lookups, from examples/<name>/acktrail.yaml (the demo's
 * own settings left out), under `over`: what tests of that pipeline run with.
 */
export function exampleConfig(name, over = {}) {
    const file = parseYaml(readFileSync(join(REPO_ROOT, `examples/${name}/acktrail.yaml`), 'utf8'));
    const { outbox, confirmations, provider, journeys, aggregateCounts, lookups } = file;
    // The reference pipeline's notification gauge, without the demo's interval.
    const sections = {
        outbox,
        confirmations,
        provider,
        journeys,
        lookups,
        aggregateCounts: aggregateCounts && {},
    };
    const tables = Object.fromEntries(Object.entries(sections).filter(([, v]) => v !== undefined));
    return merge(tables, over);
}
/** The reference pipeline's settings (examples/orders/acktrail.yaml), under `over`. */
export const ordersConfig = (over = {}) => exampleConfig('orders', over);
/** Writes a config file for an exporter under test; returns its path. */
/**
 * In the test's process the memory budget reads the whole process's resident memory: the test's
 * browser client, harnesses and any other exporter it runs count as this exporter's. Beside three
 * other test files (dashboard/test/browser.int.test.ts, 2026-12-05) that passed the default
 * 512 MiB and every OTLP export was refused (over_memory) until the SDK gave up. An exporter run
 * in the test's process therefore gets a budget beyond the test process's reach unless the test
 * sets its own (test/memory-budget.int.test.ts does); startExporterProcess keeps the default.
 */
function withTestBudget(fileConfig) {
    if (typeof fileConfig !== 'object' || fileConfig === null || 'memory' in fileConfig)
        return fileConfig;
    return { memory: { budgetBytes: IN_PROCESS_BUDGET_BYTES }, ...fileConfig };
}
const IN_PROCESS_BUDGET_BYTES = 8 * 1024 ** 3;
export function writeConfig(fileConfig) {
    const dir = mkdtempSync(join(tmpdir(), 'acktrail-exporter-'));
    const path = join(dir, 'acktrail.json');
    writeFileSync(path, JSON.stringify(fileConfig));
    return path;
}
/** Whether a background part of the exporter at `url` works, as its /status says (null: unknown). */
export async function partUp(url, part) {
    const res = await fetch(`${url}/status`);
    const body = (await res.json());
    return body.parts.find((p) => p.part === part)?.up ?? null;
}
/**
 * The runtime settings the exporter gives itself (runtime/flags.ts), as flags and variables: for
 * baselines built before it did, which must be started with them to be compared alike.
 */
export const EXPORTER_NODE_OPTIONS = NODE_FLAGS.join(' ');
export const EXPORTER_MALLOC_ENV = MALLOC_ENV;
/**
 * The exporter as its own process (`exporter/src/main.ts`), as it runs in production: for what
 * an in-process exporter cannot show (its memory, signals, being killed).
 */
export async function startExporterProcess(env, fileConfig = {}, { waitForStore = true } = {}) {
    const proc = new RoleProcess('exporter', {
        ACKTRAIL_PORT: '0',
        ACKTRAIL_CONFIG: writeConfig(fileConfig),
        ...env,
    }, [], join(REPO_ROOT, 'exporter/src/main.ts'));
    const ready = await proc.ready().catch(async (err) => {
        await proc.kill();
        throw err;
    });
    const url = `http://127.0.0.1:${String(ready.port)}`;
    // POST /v1/traces: on its own port (the ingest thread) when ACKTRAIL_INGEST_PORT is set.
    const ingestUrl = typeof ready.ingest === 'number' ? `http://127.0.0.1:${String(ready.ingest)}` : url;
    // /metrics: on its own port when ACKTRAIL_METRICS_PORT is set.
    const metricsUrl = typeof ready.metrics === 'number' ? `http://127.0.0.1:${String(ready.metrics)}` : url;
    // With a store, ready for spans once it is migrated (it migrates in the background).
    if (env.ACKTRAIL_DATABASE_URL && waitForStore)
        await waitFor('the journey store to be up', async () => (await partUp(url, 'journey_store')) === true);
    return { proc, url, ingestUrl, metricsUrl };
}
export class Scrape {
    text;
    all;
    constructor(text) {
        this.text = text;
        this.all = parseSamples(text, null);
    }
    /** Samples of a family; for a histogram, its _bucket, _sum and _count samples too. */
    samples(name) {
        const names = new Set([name, `${name}_bucket`, `${name}_sum`, `${name}_count`]);
        return this.all.filter((s) => names.has(s.name));
    }
    /** The value of the first sample whose labels include `labels`; undefined when absent. */
    value(name, labels = {}) {
        return this.samples(name).find((x) => x.name === name && matches(x.labels, labels))?.value;
    }
    /** count, sum and cumulative buckets (by `le`) of one histogram series. */
    histogram(name, labels = {}) {
        const series = this.samples(name).filter((x) => matches(x.labels, labels));
        const pick = (suffix) => series.find((x) => x.name === `${name}${suffix}`)?.value;
        const buckets = Object.fromEntries(series.filter((x) => x.name === `${name}_bucket`).map((x) => [x.labels.le ?? '', x.value]));
        return { count: pick('_count'), sum: pick('_sum'), buckets };
    }
    success(collector) {
        return this.value('acktrail_collector_success', { collector });
    }
}
function matches(have, want) {
    return Object.entries(want).every(([k, v]) => have[k] === v);
}
/**
 * A login role that can only read the pipeline's tables: what docs/metrics.md tells operators to
 * create for the exporter. Returns its connection URL and a drop (after the database is gone).
 */
export async function createReadOnlyRole(dbName) {
    const name = `${dbName}_ro`;
    const admin = new pg.Client({ connectionString: databaseUrl(dbName) });
    await admin.connect();
    try {
        await admin.query(`CREATE ROLE "${name}" LOGIN PASSWORD 'readonly'`);
        // Membership lets the test's admin end this role's sessions, as a database restore does.
        await admin.query(`GRANT "${name}" TO CURRENT_USER`);
        await admin.query(`GRANT CONNECT ON DATABASE "${dbName}" TO "${name}"`);
        await admin.query(`GRANT USAGE ON SCHEMA public TO "${name}"`);
        // Every table of the pipeline's schema, whatever its names: SELECT and nothing else.
        await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO "${name}"`);
    }
    finally {
        await admin.end();
    }
    const url = new URL(databaseUrl(dbName));
    url.username = name;
    url.password = 'readonly';
    return {
        url: url.toString(),
        name,
        drop: async () => {
            const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
            await c.connect();
            try {
                await c.query(`DROP ROLE IF EXISTS "${name}"`);
            }
            finally {
                await c.end();
            }
        },
    };
}
//# sourceMappingURL=exporter.js.map