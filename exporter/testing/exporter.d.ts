import { RoleProcess } from '@acktrail/testing';
import { type Sample } from '../src/exposition/text.js';
import { type Exporter } from '../src/server.js';
import { type Listeners } from '../src/listen.js';
export interface LogEntry {
    msg: string;
    collector?: string;
    err?: string;
}
export declare class TestExporter {
    readonly exporter: Exporter;
    private readonly servers;
    /** Every listener's port (those of their own only when configured). */
    readonly ports: Listeners['ports'];
    readonly logs: LogEntry[];
    /** The main listener's URL. */
    readonly url: string;
    private constructor();
    static start(env: Record<string, string>, fileConfig?: unknown): Promise<TestExporter>;
    /**
     * An exporter with a journey store of its own (a new database, dropped on close) and the
     * broker collectors off.
     */
    static withStore(env?: Record<string, string>, fileConfig?: object): Promise<TestExporter & {
        storeUrl: string;
    }>;
    private onClose;
    /** GET /metrics, as Prometheus does; promtool checks the same text in metrics.int.test.ts. */
    scrape(): Promise<Scrape>;
    /**
     * Polls `GET /api/events/{eventId}` with `token` until `check` holds for the journey; the error
     * names `what` and shows the last journey read.
     */
    journey<J>(token: string, eventId: string, what: string, check: (j: J) => boolean, timeoutMs?: number): Promise<J>;
    private closed;
    /** Stops serving and closes the pools; a second call does nothing. */
    close(): Promise<void>;
}
type Json = Record<string, unknown>;
/** `over` on top of `base`, object by object (arrays and values replaced whole). */
export declare function merge(base: Json, over: Json): Json;
/**
 * An example pipeline's tables, columns, words and lookups, from examples/<name>/acktrail.yaml (the demo's
 * own settings left out), under `over`: what tests of that pipeline run with.
 */
export declare function exampleConfig(name: 'orders' | 'payments', over?: Json): Json;
/** The reference pipeline's settings (examples/orders/acktrail.yaml), under `over`. */
export declare const ordersConfig: (over?: Json) => Json;
export declare function writeConfig(fileConfig: unknown): string;
/** Whether a background part of the exporter at `url` works, as its /status says (null: unknown). */
export declare function partUp(url: string, part: string): Promise<boolean | null>;
/**
 * The runtime settings the exporter gives itself (runtime/flags.ts), as flags and variables: for
 * baselines built before it did, which must be started with them to be compared alike.
 */
export declare const EXPORTER_NODE_OPTIONS: string;
export declare const EXPORTER_MALLOC_ENV: {
    readonly MALLOC_ARENA_MAX: "2";
    readonly MALLOC_TRIM_THRESHOLD_: "131072";
};
/**
 * The exporter as its own process (`exporter/src/main.ts`), as it runs in production: for what
 * an in-process exporter cannot show (its memory, signals, being killed).
 */
export declare function startExporterProcess(env: Record<string, string>, fileConfig?: unknown, { waitForStore }?: {
    waitForStore?: boolean | undefined;
}): Promise<{
    proc: RoleProcess;
    url: string;
    ingestUrl: string;
    metricsUrl: string;
}>;
export declare class Scrape {
    readonly text: string;
    private readonly all;
    constructor(text: string);
    /** Samples of a family; for a histogram, its _bucket, _sum and _count samples too. */
    samples(name: string): Sample[];
    /** The value of the first sample whose labels include `labels`; undefined when absent. */
    value(name: string, labels?: Record<string, string>): number | undefined;
    /** count, sum and cumulative buckets (by `le`) of one histogram series. */
    histogram(name: string, labels?: Record<string, string>): {
        count: number | undefined;
        sum: number | undefined;
        buckets: {
            [k: string]: number;
        };
    };
    success(collector: string): number | undefined;
}
/**
 * A login role that can only read the pipeline's tables: what docs/metrics.md tells operators to
 * create for the exporter. Returns its connection URL and a drop (after the database is gone).
 */
export declare function createReadOnlyRole(dbName: string): Promise<{
    url: string;
    name: string;
    drop(): Promise<void>;
}>;
export {};
