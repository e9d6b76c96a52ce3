// The whole reference pipeline for one test file: own database, own vhost, real processes.
import amqp from 'amqplib';
import { createPool, type Pool } from '../db/pool.js';
import {
  createTestVhost,
  type RoleProcess,
  type TestDatabase,
  type TestVhost,
} from '@acktrail/testing';
import { createTestDatabase } from './services.js';
import { startRole } from './processes.js';

export type Role = 'api' | 'relay' | 'worker' | 'provider';

/** The provider's admin token in tests (its /admin routes need one). */
const PROVIDER_ADMIN_TOKEN = 'test-provider-admin-token';

export class TestPipeline {
  readonly procs = new Map<string, RoleProcess & { port: number }>();
  private providerPort = 0;
  private apiPort = 0;

  private constructor(
    readonly db: TestDatabase,
    readonly vhost: TestVhost,
    readonly pool: Pool,
    private readonly baseEnv: Record<string, string>,
  ) {}

  /** Creates the database and vhost; starts nothing yet. */
  static async create(env: Record<string, string> = {}): Promise<TestPipeline> {
    const db = await createTestDatabase();
    const vhost = await createTestVhost();
    const baseEnv = {
      DATABASE_URL: db.url,
      RABBITMQ_URL: vhost.url,
      RETRY_DELAY_SCALE: '0.01',
      RELAY_POLL_INTERVAL_MS: '50',
      RELAY_RETRY_AFTER_MS: '200',
      PROVIDER_LATENCY_MS: '0',
      PROVIDER_ADMIN_TOKEN,
      ...env,
    };
    return new TestPipeline(db, vhost, createPool(db.url, 4), baseEnv);
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  get providerUrl(): string {
    return `http://127.0.0.1:${this.providerPort}`;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...this.baseEnv,
      ORDERS_API_PORT: '0',
      PROVIDER_PORT: '0',
      PROVIDER_URL: this.providerUrl,
      ...extra,
    };
  }

  /** Starts a role under `name` (default: the role), with extra environment. */
  async start(
    role: Role,
    extra: Record<string, string> = {},
    name: string = role,
  ): Promise<RoleProcess> {
    if (role === 'worker' && !this.providerPort)
      throw new Error('start the provider before the worker');
    const proc = await startRole(role, this.env(extra));
    this.procs.set(name, proc);
    if (role === 'provider') this.providerPort = proc.port;
    if (role === 'api') this.apiPort = proc.port;
    return proc;
  }

  async startAll(extra: Partial<Record<Role, Record<string, string>>> = {}): Promise<void> {
    await this.start('provider', extra.provider);
    await Promise.all([
      this.start('api', extra.api),
      this.start('relay', extra.relay),
      this.start('worker', extra.worker),
    ]);
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

  async createOrder(
    body: { customer_email: string; total: number } = {
      customer_email: 'a@example.com',
      total: 25,
    },
  ) {
    const res = await fetch(`${this.apiUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST /orders: ${res.status} ${await res.text()}`);
    return (await res.json()) as {
      order_id: number;
      event_id: string;
      notification_status: string;
    };
  }

  async providerStats(
    key?: string,
  ): Promise<{ requests: number; sent: number; sent_for_key?: number }> {
    const q = key ? `?key=${encodeURIComponent(key)}` : '';
    const res = await fetch(`${this.providerUrl}/admin/stats${q}`, {
      headers: { authorization: `Bearer ${this.baseEnv.PROVIDER_ADMIN_TOKEN ?? ''}` },
    });
    return (await res.json()) as { requests: number; sent: number; sent_for_key?: number };
  }

  /** Changes how the running provider fails (its /admin/settings). */
  async providerSettings(patch: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.providerUrl}/admin/settings`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${this.baseEnv.PROVIDER_ADMIN_TOKEN ?? ''}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(patch),
    });
    if (!res.ok) throw new Error(`provider settings: ${res.status} ${await res.text()}`);
  }

  /** Ready-message count and consumer count, straight from the broker (no stats delay). */
  async queue(name: string): Promise<{ messageCount: number; consumerCount: number }> {
    const conn = await amqp.connect(this.vhost.url);
    try {
      const ch = await conn.createChannel();
      return await ch.checkQueue(name);
    } finally {
      await conn.close();
    }
  }

  /** Takes every message from a queue (acking them) and returns bodies and headers. */
  async drain(
    name: string,
  ): Promise<{ body: unknown; messageId: unknown; headers: Record<string, unknown> }[]> {
    const conn = await amqp.connect(this.vhost.url);
    const out: { body: unknown; messageId: unknown; headers: Record<string, unknown> }[] = [];
    try {
      const ch = await conn.createChannel();
      for (;;) {
        const msg = await ch.get(name, { noAck: true });
        if (!msg) break;
        let body: unknown;
        try {
          body = JSON.parse(msg.content.toString());
        } catch {
          body = msg.content.toString();
        }
        out.push({
          body,
          messageId: msg.properties.messageId,
          headers: msg.properties.headers ?? {},
        });
      }
    } finally {
      await conn.close();
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([...this.procs.values()].map((p) => p.stop()));
    this.procs.clear();
    await this.pool.end();
    await this.vhost.drop();
    await this.db.drop();
  }
}
