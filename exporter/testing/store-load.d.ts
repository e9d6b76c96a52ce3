import { type RoleProcess } from '@acktrail/testing';
type Tally = Map<number | string, number>;
export interface StoreLoad {
    /** Batches answered 200, by number. */
    acked: number[];
    /** The answers to exports and to lookups, by status (or "no answer: ..."). */
    exports: Tally;
    lookups: Tally;
    /** Stops sending and reading; resolves once every request in flight has its answer. */
    stop(): Promise<void>;
}
/** `senders` posting batches of spans and `readers` looking their journeys up, until stopped. */
export declare function storeLoad(url: string, token: string, senders?: number, readers?: number): StoreLoad;
/**
 * What must hold once the database is back: the same process serves, exports were answered 200
 * or 503 and lookups 200, 404 or 503 (never a dropped connection), /readyz is ready within 10 s,
 * every batch answered 200 is whole in the store, and the outbox collector reads again.
 */
export declare function assertRecovered(proc: RoleProcess, url: string, storeUrl: string, load: StoreLoad): Promise<void>;
/** One line for a test's diagnostics: what the load was answered. */
export declare const loadSummary: (load: StoreLoad) => string;
export {};
