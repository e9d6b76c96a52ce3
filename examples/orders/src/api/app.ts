// The orders API: POST /orders (order + outbox row in one transaction), GET /orders/:id,
// POST /orders/:id/cancel. Bad input gets a 400 that says what is wrong.
import express, { type ErrorRequestHandler } from 'express';
import { z } from 'zod';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { cancelOrder, createOrder, getOrder } from './orders.js';

const createOrderBody = z.strictObject({
  customer_email: z.email(),
  total: z.number().nonnegative().max(1e10).multipleOf(0.01),
});

const orderId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

function describe(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

export function createApp(pool: Pool, log: Logger): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb' }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.post('/orders', async (req, res) => {
    const body = createOrderBody.safeParse(req.body);
    if (!body.success) {
      res.status(400).json({ error: describe(body.error) });
      return;
    }
    const created = await createOrder(pool, body.data);
    log.info({ order_id: created.order_id, event_id: created.event_id }, 'order created');
    res.status(201).location(`/orders/${created.order_id}`).json(created);
  });

  // Every route with :id gets it validated once, as res.locals.orderId.
  app.param('id', (_req, res, next, value: string) => {
    const id = orderId.safeParse(value);
    if (!id.success) {
      res.status(400).json({ error: 'order id must be a positive integer' });
      return;
    }
    res.locals.orderId = id.data;
    next();
  });

  app.get('/orders/:id', async (_req, res) => {
    const id = res.locals.orderId as number;
    const order = await getOrder(pool, id);
    if (!order) {
      res.status(404).json({ error: `order ${id} not found` });
      return;
    }
    res.json(order);
  });

  app.post('/orders/:id/cancel', async (_req, res) => {
    const id = res.locals.orderId as number;
    const result = await cancelOrder(pool, id);
    if (result === 'not_found') res.status(404).json({ error: `order ${id} not found` });
    else if (result === 'too_late')
      res.status(409).json({ error: `order ${id} is already confirmed or failed` });
    else res.json({ order_id: id, status: 'cancelled' });
  });

  app.use((_req, res) => {
    res.status(404).json({ error: 'no such route' });
  });

  const onError: ErrorRequestHandler = (
    err: { type?: string; status?: number },
    _req,
    res,
    _next,
  ) => {
    if (err.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'body is not valid JSON' });
    } else if (err.type === 'entity.too.large') {
      res.status(413).json({ error: 'body is larger than 16kb' });
    } else if (err.status && err.status >= 400 && err.status < 500) {
      res.status(err.status).json({ error: 'bad request' });
    } else {
      log.error({ err }, 'request failed');
      res.status(500).json({ error: 'internal error' });
    }
  };
  app.use(onError);
  return app;
}
