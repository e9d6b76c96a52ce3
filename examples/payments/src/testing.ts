// The payments pipeline for one test file: its own database (its own schema, none of the
// reference pipeline's tables) and vhost, and its roles as real processes.
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import {
  RoleProcess,
  createTestDatabase,
  createTestVhost,
  type TestDatabase,
  type TestVhost,
} from '@acktrail/testing';
import { migrate } from './db.js';

export type PaymentsRole = 'api' | 'relay' | 'ledger' | 'receipts' | 'audit';
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

export class TestPayments {
  readonly procs = new Map<string, RoleProcess>();
  private apiPort = 0;

  private constructor(
    readonly db: TestDatabase,
    readonly vhost: TestVhost,
    private readonly baseEnv: Record<string, string>,
  ) {}

  static async create(env: Record<string, string> = {}): Promise<TestPayments> {
    const db = await createTestDatabase('acktrail_pay', migrate);
    const vhost = await createTestVhost('acktrail_pay');
    return new TestPayments(db, vhost, {
      DATABASE_URL: db.url,
      RABBITMQ_URL: vhost.url,
      RELAY_POLL_INTERVAL_MS: '50',
      PAYMENTS_API_PORT: '0',
      ...env,
    });
  }

  /** Starts a role under `name` (default: the role) and waits until it is ready. */
  async start(role: PaymentsRole, env: Record<string, string> = {}, name: string = role) {
    const proc = new RoleProcess(name, { ...this.baseEnv, ...env }, [role], MAIN);
    const ready = await proc.ready().catch(async (err: unknown) => {
      await proc.kill();
      throw err;
    });
    if (role === 'api') this.apiPort = Number(ready.port);
    this.procs.set(name, proc);
    return proc;
  }

  proc(name: string): RoleProcess {
    const p = this.procs.get(name);
    if (!p) throw new Error(`no process ${name}`);
    return p;
  }

  async stop(name: string): Promise<void> {
    await this.procs.get(name)?.stop();
    this.procs.delete(name);
  }

  async createIntent(amountCents: number, currency = 'EUR') {
    const res = await fetch(`http://127.0.0.1:${this.apiPort}/intents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount_cents: amountCents, currency }),
    });
    if (res.status !== 201) throw new Error(`POST /intents: ${res.status} ${await res.text()}`);
    return (await res.json()) as { intent_ref: string; event_id: string };
  }

  /** Ready messages and consumers of a queue, straight from the broker. */
  async queue(name: string): Promise<{ messageCount: number; consumerCount: number }> {
    const conn = await amqp.connect(this.vhost.url);
    try {
      return await (await conn.createChannel()).checkQueue(name);
    } finally {
      await conn.close();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.procs.values()].map((p) => p.stop()));
    this.procs.clear();
    await this.vhost.drop();
    await this.db.drop();
  }
}
