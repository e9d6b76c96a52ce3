// POST /intents: the payment intent and its outbox row, in one transaction. The event's id is the
// outbox row's msg_uuid; the relay publishes it as the message id.
import { randomBytes, randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { z } from 'zod';
import { inTransaction, type Pool } from './db.js';
import type { Logger } from './log.js';
import { CAPTURED } from './topology.js';

const intent = z.object({
  amount_cents: z.number().int().min(-1_000_000_000_00).max(1_000_000_000_00),
  currency: z.string().regex(/^[A-Z]{3}$/, 'three capital letters (ISO 4217)'),
});

export function createApp(pool: Pool, log: Logger): Express {
  const app = express();
  app.use(express.json({ limit: '4kb' }));
  app.post('/intents', async (req, res) => {
    const parsed = intent.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({
        error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      });
      return;
    }
    const ref = `pi_${randomBytes(8).toString('hex')}`;
    const eventId = randomUUID();
    await inTransaction(pool, async (c) => {
      await c.query(
        'INSERT INTO pay_intents (intent_ref, amount_cents, currency) VALUES ($1, $2, $3)',
        [ref, parsed.data.amount_cents, parsed.data.currency],
      );
      await c.query('INSERT INTO pay_outbox (msg_uuid, intent_ref, topic) VALUES ($1, $2, $3)', [
        eventId,
        ref,
        CAPTURED,
      ]);
    });
    log.info({ intent_ref: ref, event_id: eventId }, 'intent opened');
    res.status(201).json({ intent_ref: ref, event_id: eventId });
  });
  return app;
}
