// Stand-in for an external e-mail API. It honours idempotency keys (a repeated key returns the
// first result without sending again, with `Idempotent-Replayed: true`), and can be told to fail:
// a 503 rate, latency, a rate of requests that hang, and addresses it rejects for good.
import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { IDEMPOTENCY_HEADER, REPLAY_HEADER } from '../worker/provider-client.js';

export type ProviderSettings = Pick<
  Config['provider'],
  'latencyMs' | 'failureRate' | 'timeoutRate' | 'hangMs' | 'rejectAddresses'
>;

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The /admin routes change how the provider fails: they need the admin token. */
function requireAdmin(token: string | null): express.RequestHandler {
  const expected = token ? digest(token) : null;
  return (req, res, next) => {
    const given = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (!expected || !given || !timingSafeEqual(digest(given), expected)) {
      res
        .status(401)
        .set('www-authenticate', 'Bearer realm="provider-admin"')
        .json({
          error: expected
            ? 'missing or wrong bearer token (PROVIDER_ADMIN_TOKEN)'
            : 'the admin routes are off: set PROVIDER_ADMIN_TOKEN',
        });
      return;
    }
    next();
  };
}

const settingsPatch = z.strictObject({
  latencyMs: z.number().int().min(0).optional(),
  failureRate: z.number().min(0).max(1).optional(),
  timeoutRate: z.number().min(0).max(1).optional(),
  hangMs: z.number().int().min(0).optional(),
  rejectAddresses: z.array(z.string()).optional(),
});

const messageBody = z.object({
  to: z.string().min(1),
  template: z.string().min(1),
  order_id: z.number().int().positive(),
});

interface StoredResult {
  status: number;
  body: Record<string, unknown>;
}

/** `*` in a pattern matches any run of characters; everything else literally. */
export function matchesAny(address: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => {
    const re = new RegExp(
      `^${p
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      'i',
    );
    return re.test(address);
  });
}

export function createProviderApp(
  initial: ProviderSettings,
  log: Logger,
  adminToken: string | null,
  random: () => number = Math.random,
) {
  const settings: ProviderSettings = { ...initial };
  /** Results by idempotency key; a pending promise while the first request is in flight. */
  const results = new Map<string, Promise<StoredResult | null>>();
  /** How many messages were really sent per key: the effect the idempotency key protects. */
  const sends = new Map<string, number>();
  let requests = 0;

  async function execute(to: string): Promise<StoredResult | null> {
    if (settings.latencyMs > 0) await sleep(settings.latencyMs);
    const roll = random();
    if (roll < settings.timeoutRate) {
      // Hangs, then sends anyway: the caller's timeout says nothing about the effect.
      await sleep(settings.hangMs);
    } else if (roll < settings.timeoutRate + settings.failureRate) {
      return null; // 503, not remembered: a retry with the same key tries again
    }
    if (matchesAny(to, settings.rejectAddresses)) {
      return { status: 422, body: { error: 'invalid address' } };
    }
    return { status: 202, body: { status: 'sent', message_id: `msg-${crypto.randomUUID()}` } };
  }

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb' }));

  app.post('/v1/messages', async (req, res) => {
    requests++;
    const key = req.get(IDEMPOTENCY_HEADER);
    if (!key) {
      res.status(400).json({ error: `${IDEMPOTENCY_HEADER} header is required` });
      return;
    }
    const body = messageBody.safeParse(req.body);
    if (!body.success) {
      res.status(400).json({ error: 'body needs to, template and order_id' });
      return;
    }
    const earlier = results.get(key);
    if (earlier) {
      const first = await earlier;
      if (first) {
        res.status(first.status).set(REPLAY_HEADER, 'true').json(first.body);
      } else {
        res.status(503).json({ error: 'temporarily unavailable' });
      }
      return;
    }
    const pending = execute(body.data.to);
    results.set(key, pending);
    const result = await pending;
    // A 503 is not remembered, nor is a refused address: like Stripe's idempotency, a request
    // that failed validation stores no result, so the same key works once the address is fixed.
    if (!result || result.status === 422) results.delete(key);
    if (!result) {
      res.status(503).json({ error: 'temporarily unavailable' });
      return;
    }
    if (result.status === 202) sends.set(key, (sends.get(key) ?? 0) + 1);
    log.debug({ key, status: result.status }, 'message handled');
    res.status(result.status).json(result.body);
  });

  app.use('/admin', requireAdmin(adminToken));
  app.get('/admin/settings', (_req, res) => {
    res.json(settings);
  });
  app.put('/admin/settings', (req, res) => {
    const patch = settingsPatch.safeParse(req.body);
    if (!patch.success) {
      res.status(400).json({
        error: patch.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      });
      return;
    }
    Object.assign(settings, patch.data);
    log.info({ settings }, 'settings changed');
    res.json(settings);
  });
  app.get('/admin/stats', (req, res) => {
    const key = typeof req.query.key === 'string' ? req.query.key : undefined;
    res.json({
      requests,
      sent: [...sends.values()].reduce((a, b) => a + b, 0),
      ...(key ? { sent_for_key: sends.get(key) ?? 0 } : {}),
    });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  return app;
}
