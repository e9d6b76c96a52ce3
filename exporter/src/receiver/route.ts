// POST /v1/traces: OTLP/HTTP with protobuf or JSON bodies, gzip or not. Answers in the request's
// content type: 200 (with partialSuccess when spans were rejected) only after the accepted steps
// are committed; 400 for an undecodable body, 413 beyond the body limit, 415 for another content
// type, 503 when the store cannot take the write (the SDK retries; nothing was stored).
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../log.js';
import { errorMessage } from '../log.js';
import type { JourneyMetrics } from '../journeys/metrics.js';
import { normalise } from '../journeys/normalize.js';
import type { Step } from '../journeys/steps.js';
import type { StepStore } from '../journeys/store.js';
import { decodeJson, decodeProtobuf } from './decode.js';
import { ExportTraceServiceResponse, RpcStatus } from './otlp-schema.js';
import { DecodeError } from './spans.js';

const PROTOBUF = ['application/x-protobuf', 'application/protobuf'];
const JSON_TYPE = 'application/json';
/** gRPC status codes used in google.rpc.Status bodies. */
const INVALID_ARGUMENT = 3;
const UNAVAILABLE = 14;
const DAY_US = 86_400_000_000;

export interface ReceiverOptions {
  store: StepStore | null;
  metrics: JourneyMetrics;
  log: Logger;
  maxBodyBytes: number;
  retentionDays: number;
  /** Resolves when the store is migrated; rejects when it cannot be. */
  ready: Promise<void>;
}

const isProtobuf = (req: Request) => PROTOBUF.some((t) => req.is(t));

function reply(req: Request, res: Response, status: number, body: object, type: 'ok' | 'error') {
  if (isProtobuf(req)) {
    const message = type === 'ok' ? ExportTraceServiceResponse : RpcStatus;
    res
      .status(status)
      .type('application/x-protobuf')
      .send(Buffer.from(message.encode(message.fromObject(body)).finish()));
  } else {
    res.status(status).json(body);
  }
}

export function receiverRouter(opts: ReceiverOptions): express.Router {
  const router = express.Router();
  const fail = (req: Request, res: Response, status: number, code: number, message: string) => {
    reply(req, res, status, { code, message }, 'error');
  };

  router.post(
    '/v1/traces',
    express.raw({ type: [...PROTOBUF, JSON_TYPE], limit: opts.maxBodyBytes, inflate: true }),
    async (req: Request, res: Response) => {
      if (!Buffer.isBuffer(req.body)) {
        res.status(415).json({
          code: INVALID_ARGUMENT,
          message: `content-type must be ${[...PROTOBUF, JSON_TYPE].join(' or ')}`,
        });
        return;
      }
      if (!opts.store) {
        fail(
          req,
          res,
          503,
          UNAVAILABLE,
          'the journey store is not configured (ACKTRAIL_DATABASE_URL)',
        );
        return;
      }
      try {
        await opts.ready;
      } catch {
        fail(
          req,
          res,
          503,
          UNAVAILABLE,
          'the journey store could not be prepared; see the exporter log',
        );
        return;
      }
      let spans;
      try {
        spans = isProtobuf(req) ? decodeProtobuf(req.body) : decodeJson(req.body);
      } catch (err) {
        if (!(err instanceof DecodeError) && !(err instanceof RangeError)) throw err;
        opts.metrics.spansReceived.inc({ outcome: 'rejected' });
        fail(req, res, 400, INVALID_ARGUMENT, err.message);
        return;
      }
      const now = Date.now() * 1000;
      const window = { fromUs: now - opts.retentionDays * DAY_US, toUs: now + DAY_US };
      const steps: Step[] = [];
      const reasons = new Map<string, number>();
      let ignored = 0;
      for (const span of spans) {
        const n = normalise(span, window);
        if (n.kind === 'step') steps.push(n.step);
        else if (n.kind === 'ignored') ignored++;
        else reasons.set(n.reason, (reasons.get(n.reason) ?? 0) + 1);
      }
      let result;
      try {
        result = await opts.store.write(steps);
      } catch (err) {
        opts.log.error(
          { err: errorMessage(err), steps: steps.length },
          'journey store write failed',
        );
        res.set('retry-after', '5');
        fail(req, res, 503, UNAVAILABLE, 'the journey store is unavailable; retry later');
        return;
      }
      // Only once the steps are committed: a failure in here must not turn a stored write into
      // a 503.
      opts.metrics.observe(result);
      const rejected = [...reasons.values()].reduce((a, b) => a + b, 0);
      opts.metrics.spansReceived.inc({ outcome: 'accepted' }, steps.length);
      opts.metrics.spansReceived.inc({ outcome: 'ignored' }, ignored);
      opts.metrics.spansReceived.inc({ outcome: 'rejected' }, rejected);
      const body =
        rejected > 0
          ? {
              partialSuccess: {
                rejectedSpans: rejected,
                errorMessage: [...reasons].map(([r, n]) => `${n} span(s): ${r}`).join('; '),
              },
            }
          : {};
      reply(req, res, 200, body, 'ok');
    },
  );

  // body-parser's errors (too large, bad gzip, unsupported encoding) in OTLP's shape.
  router.use('/v1/traces', (err: unknown, req: Request, res: Response, next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (typeof status !== 'number' || status < 400 || status >= 500) {
      next(err);
      return;
    }
    opts.metrics.spansReceived.inc({ outcome: 'rejected' });
    const message =
      status === 413
        ? `body larger than ${opts.maxBodyBytes} bytes (after inflation)`
        : `unreadable body: ${(err as Error).message}`;
    fail(req, res, status, INVALID_ARGUMENT, message);
  });
  return router;
}
