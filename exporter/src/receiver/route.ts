// POST /v1/traces: OTLP/HTTP with protobuf or JSON bodies, gzip or not. Answers in the request's
// content type: 200 (with partialSuccess when spans were rejected) only after the accepted steps
// are committed; 400 for an undecodable body, 401 without the ingest token (when one is set),
// 413 beyond the body or span limit, 415 for another content type, 503 with Retry-After when the
// in-flight budget, the store's write queue or the store itself cannot take it (the SDK retries;
// nothing was stored). Everything is refused before the body is read where it can be.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { Logger } from '../log.js';
import { errorMessage } from '../log.js';
import type { JourneyMetrics, RefusalReason } from '../journeys/metrics.js';
import type { QueueLookup } from '../collectors/index.js';
import type { Coverage } from './coverage.js';
import { normalise } from './normalize.js';
import type { Step } from '../journeys/steps.js';
import { StepsRefusedError, StoreBusyError } from '../journeys/store/store.js';
import type { JourneyStore } from '../journeys/store/supervisor.js';
import { BodyError, ByteBudget, discardBody, readBody } from './body.js';
import type { BodyDecoder } from './decoder.js';
import { ExportTraceServiceResponse, RpcStatus } from './otlp-schema.js';
import { DecodeError } from './spans.js';

const PROTOBUF = ['application/x-protobuf', 'application/protobuf'];
const JSON_TYPE = 'application/json';
/** gRPC status codes used in google.rpc.Status bodies. */
const INVALID_ARGUMENT = 3;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;
const DAY_US = 86_400_000_000;
const RETRY_AFTER_SECONDS = '5';

export interface IngestLimits {
  /** Largest body after inflation (413 beyond). */
  maxBodyBytes: number;
  /** Bytes of bodies read or worked on at once, over all requests (503 beyond). */
  maxInflightBytes: number;
  /** Spans in one request (413 beyond). */
  maxSpansPerRequest: number;
  /** A body idle this long is dropped (ms). */
  bodyIdleMs: number;
}

export interface ReceiverOptions {
  store: JourneyStore | null;
  metrics: JourneyMetrics;
  log: Logger;
  limits: IngestLimits;
  retentionDays: number;
  /** With a token, a request needs `Authorization: Bearer <token>` (401 otherwise). */
  ingestToken: string | null;
  /** False once the exporter is shutting down: requests that still arrive are refused. */
  accepting: () => boolean;
  /** What the exporter knows about a queue: a reject's anomaly depends on its dead-letter exchange. */
  queues?: QueueLookup;
  /** Counts what every span lets journeys read (GET /api/coverage). */
  coverage?: Coverage;
  /** Decodes bodies; large ones in worker threads. */
  decoder: BodyDecoder;
}

const isProtobuf = (req: Request) => PROTOBUF.some((t) => req.is(t));
const digest = (s: string) => createHash('sha256').update(s).digest();

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
  const budget = new ByteBudget(opts.limits.maxInflightBytes, (inUse) => {
    opts.metrics.inflightBytes.set(inUse);
  });
  const expected = opts.ingestToken ? digest(opts.ingestToken) : null;

  const fail = (req: Request, res: Response, status: number, code: number, message: string) => {
    reply(req, res, status, { code, message }, 'error');
  };
  /**
   * 503 "retry later", counted by reason. The rest of the body is read and thrown away (bounded),
   * so that an SDK still sending reads the 503 and its Retry-After rather than a reset.
   */
  const refuse = (req: Request, res: Response, reason: RefusalReason, message: string) => {
    opts.metrics.refused.inc({ reason });
    res.set('retry-after', RETRY_AFTER_SECONDS);
    if (reason === 'shutting_down') res.set('connection', 'close');
    discardBody(req, opts.limits.maxBodyBytes, opts.limits.bodyIdleMs);
    fail(req, res, 503, UNAVAILABLE, message);
  };

  router.post('/v1/traces', async (req: Request, res: Response) => {
    if (!opts.accepting()) {
      refuse(req, res, 'shutting_down', 'the exporter is shutting down; retry on another');
      return;
    }
    if (expected) {
      const given = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), expected)) {
        opts.metrics.refused.inc({ reason: 'unauthorized' });
        res.set('www-authenticate', 'Bearer realm="acktrail-ingest"').set('connection', 'close');
        discardBody(req, opts.limits.maxBodyBytes, opts.limits.bodyIdleMs);
        fail(req, res, 401, UNAUTHENTICATED, 'missing or wrong bearer token (the ingest token)');
        return;
      }
    }
    if (!isProtobuf(req) && !req.is(JSON_TYPE)) {
      res.status(415).json({
        code: INVALID_ARGUMENT,
        message: `content-type must be ${[...PROTOBUF, JSON_TYPE].join(' or ')}`,
      });
      return;
    }
    const store = opts.store;
    if (!store) {
      fail(
        req,
        res,
        503,
        UNAVAILABLE,
        'the journey store is not configured (ACKTRAIL_DATABASE_URL)',
      );
      return;
    }
    if (!store.ready) {
      refuse(req, res, 'store_unavailable', 'the journey store is not ready yet; retry later');
      return;
    }
    let body;
    try {
      body = await readBody(req, budget, opts.limits.maxBodyBytes, opts.limits.bodyIdleMs);
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      if (err.status === 503) {
        refuse(req, res, 'over_budget', err.message);
        return;
      }
      if (err.status === 408) {
        opts.metrics.refused.inc({ reason: 'idle_body' });
        return; // the connection is gone with the body
      }
      opts.metrics.spansReceived.inc({ outcome: 'rejected' });
      fail(req, res, err.status, INVALID_ARGUMENT, err.message);
      return;
    }
    // The budget is held until the answer is out: decoded spans and steps live until then.
    res.once('close', () => {
      body.release();
    });
    await ingest(req, res, body.bytes, store);
  });

  async function ingest(req: Request, res: Response, bytes: Buffer, store: JourneyStore) {
    let spans;
    try {
      const max = opts.limits.maxSpansPerRequest;
      spans = await opts.decoder.decode(isProtobuf(req) ? 'protobuf' : 'json', bytes, max);
    } catch (err) {
      if (!(err instanceof DecodeError) && !(err instanceof RangeError)) throw err;
      opts.metrics.spansReceived.inc({ outcome: 'rejected' });
      const tooMany = err instanceof DecodeError && err.tooMany;
      fail(
        req,
        res,
        tooMany ? 413 : 400,
        tooMany ? RESOURCE_EXHAUSTED : INVALID_ARGUMENT,
        err.message,
      );
      return;
    }
    const now = Date.now() * 1000;
    const window = { fromUs: now - opts.retentionDays * DAY_US, toUs: now + DAY_US };
    const steps: Step[] = [];
    const reasons = new Map<string, number>();
    let ignored = 0;
    let accepted = 0;
    for (const span of spans) {
      opts.coverage?.observe(span);
      const n = normalise(span, window, opts.queues);
      if (n.kind === 'steps') {
        accepted++;
        steps.push(...n.steps);
      } else if (n.kind === 'ignored') ignored++;
      else reasons.set(n.reason, (reasons.get(n.reason) ?? 0) + 1);
    }
    let result;
    try {
      result = await store.steps.write(steps);
    } catch (err) {
      if (err instanceof StoreBusyError) {
        refuse(req, res, 'store_busy', `${err.message}; retry later`);
      } else if (err instanceof StepsRefusedError) {
        opts.metrics.spansReceived.inc({ outcome: 'rejected' }, spans.length);
        fail(req, res, 400, INVALID_ARGUMENT, err.message);
      } else {
        // Logged once per change of state by the store (Health); per request only at debug.
        opts.log.debug(
          { err: errorMessage(err), steps: steps.length },
          'journey store write failed',
        );
        refuse(req, res, 'store_unavailable', 'the journey store is unavailable; retry later');
      }
      return;
    }
    // Only once the steps are committed: a failure in here must not turn a stored write into
    // a 503.
    opts.metrics.observe(result);
    const rejected = [...reasons.values()].reduce((a, b) => a + b, 0);
    opts.metrics.spansReceived.inc({ outcome: 'accepted' }, accepted);
    opts.metrics.spansReceived.inc({ outcome: 'ignored' }, ignored);
    opts.metrics.spansReceived.inc({ outcome: 'rejected' }, rejected);
    const answer =
      rejected > 0
        ? {
            partialSuccess: {
              rejectedSpans: rejected,
              errorMessage: [...reasons].map(([r, n]) => `${n} span(s): ${r}`).join('; '),
            },
          }
        : {};
    reply(req, res, 200, answer, 'ok');
  }

  return router;
}
