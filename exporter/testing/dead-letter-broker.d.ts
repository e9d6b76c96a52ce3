import { type Channel } from 'amqplib';
import pg from 'pg';
import { type TestDatabase, type TestVhost } from '@acktrail/testing';
export declare const DLQ = "jobs.dlq";
export interface DeadLetterBench {
    vhost: TestVhost;
    store: TestDatabase;
    db: pg.Client;
    drop(): Promise<void>;
}
/** `more` declares what else a test needs on the same channel. */
export declare function deadLetterBench(more?: (ch: Channel) => Promise<void>): Promise<DeadLetterBench>;
