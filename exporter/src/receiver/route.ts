// POST /v1/traces: OTLP/HTTP with protobuf or JSON bodies, gzip or not. Answers in the request's
// content type: 200 (with partialSuccess when spans were rejected) only after the accepted steps
// are committed; 400 for an undecodable body, 401 without the ingest token (when one is set),
// 413 beyond the body or span limit, 415 for another content type, 503 with Retry-After when the
// in-flight budget, the store's write queue or the store itself cannot take it (the SDK retries;
// nothing was stored). Everything is refused before the body is read where it can be, and before
// it is sent when the client waits for 100 Continue (continue.ts). What is
// refused or stored is decided by Ingest (ingest.ts), which OTLP/gRPC shares.
import express, { type Request, type Response } from 'express';
import { BodyError, readBody } from './body.js';
import { discardBody, discardLimit } from './discard.js';
import { OTLP_TRACES_PATH, bodyHeldBack, sendContinue } from './continue.js';
import type { IngestGate, Outcome } from './gate.js';
import { ExportTraceServiceResponse, RpcStatus } from '../journeys/spans/index.js';

const PROTOBUF = ['application/x-protobuf', 'application/protobuf'];
const JSON_TYPE = 'application/json';
/** gRPC status codes used in google.rpc.Status bodies. */
const INVALID_ARGUMENT = 3;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;
/**
 * Short enough that an SDK retries within its export's time: OTel JS (otlp-exporter-base
 * 0.301.0, retrying-transport.ts) waits Retry-After but gives up when it is longer than what is
 * left of its 10 s export timeout, so at 5 s it retried once; at 2 s it uses its five retries over
 * 8 s. The refusals clear in that time: over_memory within a collection, store_busy as the write
 * queue drains.
 */
const RETRY_AFTER_SECONDS = '2';

const isProtobuf = (req: Request) => PROTOBUF.some((t) => req.is(t));

/** Whether the connection closes after this answer: the client or the answer said so. */
const closing = (req: Request, res: Response) =>
  [req.get('connection'), res.get('connection')].some((v) =>
    (v ?? '').split(',').some((t) => t.trim().toLowerCase() === 'close'),
  );

/** How a refused body is read and thrown away (discard.ts). */
interface DiscardBounds {
  discardBytes: number;
  bodyIdleMs: number;
  discardInParser: boolean;
}

const discardRest = (req: Request, b: DiscardBounds) => {
  discardBody(req, b.discardBytes, b.bodyIdleMs, { parser: b.discardInParser });
};

/**
 * Sends the answer. A client that closes its connection after this answer (Python's urllib sends
 * `Connection: close`, and a refusal may say it too) may send its whole body before it reads
 * anything: answered at once, the connection would close under it and it would see a broken pipe,
 * not the answer. Its body is read and thrown away first (discard.ts, within its bounds; a client
 * that stops sending is closed by them), then the answer goes.
 */
function replyAfterBody(
  req: Request,
  res: Response,
  status: number,
  body: object,
  bounds: DiscardBounds,
) {
  // Answered before its 100 Continue: the body never comes, the connection cannot be reused.
  if (bodyHeldBack(req, res)) res.set('connection', 'close');
  else if (!req.complete && closing(req, res)) {
    discardRest(req, bounds);
    req.once('end', () => {
      send(req, res, status, body);
    });
    return;
  }
  send(req, res, status, body);
}

function send(req: Request, res: Response, status: number, body: object) {
  if (isProtobuf(req)) {
    const message = status === 200 ? ExportTraceServiceResponse : RpcStatus;
    res
      .status(status)
      .type('application/x-protobuf')
      .send(Buffer.from(message.encode(message.fromObject(body)).finish()));
  } else {
    res.status(status).json(body);
  }
}

/** A 200's body: empty, or OTLP's partial success with the spans rejected and why. */
const storedBody = (o: Extract<Outcome, { kind: 'stored' }>) =>
  o.rejected > 0 ? { partialSuccess: { rejectedSpans: o.rejected, errorMessage: o.message } } : {};

export function receiverRouter(ingest: IngestGate): express.Router {
  const router = express.Router();
  const { maxBodyBytes, bodyIdleMs, discardInParser } = ingest.limits;
  const bounds = { discardBytes: discardLimit(maxBodyBytes), bodyIdleMs, discardInParser };
  const reply = (req: Request, res: Response, status: number, body: object) => {
    replyAfterBody(req, res, status, body, bounds);
  };

  /** Reads and drops a refused body, unless its client holds it back (Expect: 100-continue). */
  const drop = (req: Request, res: Response) => {
    if (!bodyHeldBack(req, res)) discardRest(req, bounds);
  };

  /** Answers an outcome. A refusal reads and throws away the rest of the body (bounded), so
   * that an SDK still sending reads the 503 and its Retry-After rather than a reset. */
  const answer = (req: Request, res: Response, outcome: Outcome) => {
    switch (outcome.kind) {
      case 'stored':
        reply(req, res, 200, storedBody(outcome));
        return;
      case 'refused':
        res.set('retry-after', RETRY_AFTER_SECONDS);
        if (outcome.reason === 'shutting_down') res.set('connection', 'close');
        drop(req, res);
        reply(req, res, 503, { code: UNAVAILABLE, message: outcome.message });
        return;
      case 'invalid':
        reply(req, res, outcome.tooLarge ? 413 : 400, {
          code: outcome.tooLarge ? RESOURCE_EXHAUSTED : INVALID_ARGUMENT,
          message: outcome.message,
        });
    }
  };

  router.post(OTLP_TRACES_PATH, async (req: Request, res: Response) => {
    const admitted = ingest.admit(req.get('authorization'));
    if (admitted?.kind === 'unauthorized') {
      res.set('www-authenticate', 'Bearer realm="acktrail-ingest"').set('connection', 'close');
      drop(req, res);
      reply(req, res, 401, { code: UNAUTHENTICATED, message: admitted.message });
      return;
    }
    if (!isProtobuf(req) && !req.is(JSON_TYPE)) {
      reply(req, res, 415, {
        code: INVALID_ARGUMENT,
        message: `content-type must be ${[...PROTOBUF, JSON_TYPE].join(' or ')}`,
      });
      return;
    }
    if (admitted) {
      answer(req, res, admitted);
      return;
    }
    let body;
    try {
      const times = { idleMs: bodyIdleMs, totalMs: ingest.limits.bodyMs, discardInParser };
      body = await readBody(req, ingest.budget, maxBodyBytes, times, () => {
        sendContinue(res);
      });
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      if (err.status === 503) answer(req, res, ingest.refuse(err.refusal, err.message));
      else if (err.status === 408)
        ingest.refuse(err.slow ? 'slow_body' : 'idle_body', err.message); // the connection is gone
      else {
        const outcome = ingest.unreadable(err.message, err.status === 413);
        // An unknown content-encoding is the one 415 found while reading.
        if (err.status === 415)
          reply(req, res, 415, { code: INVALID_ARGUMENT, message: err.message });
        else answer(req, res, outcome);
      }
      return;
    }
    // The budget is held until the answer is out: decoded spans and steps live until then.
    res.once('close', () => {
      body.release();
    });
    const sender = req.socket.remoteAddress ?? '';
    answer(
      req,
      res,
      await ingest.ingest(isProtobuf(req) ? 'protobuf' : 'json', body.chunks, sender),
    );
  });

  return router;
}
