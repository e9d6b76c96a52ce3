// The ingest thread: OTLP/HTTP on ACKTRAIL_INGEST_PORT and OTLP/gRPC, on an event loop of their
// own, so that a flood of spans (reading bodies, inflating, decoding) never makes /healthz,
// /metrics or the API wait. Here the same gate as on the exporter's loop (gate.ts) admits
// requests, reads their bodies within the in-flight budget and decodes them into steps (large
// ones in the decoding workers, decoder.ts); the exporter's loop stores the steps and counts them
// (Ingest.accept) and says how each ended. A request is
// answered 200 only once its steps are committed, as on the exporter's own loop.
import { parentPort, workerData } from 'node:worker_threads';
import express, { type Request, type Response } from 'express';
import { listenHttp, requestsInFlight } from '../http-listener.js';
import { lowerThisThread } from '../../runtime/threads.js';
import { ByteBudget } from '../budget.js';
import { BodyDecoder } from '../decoder.js';
import { OtlpGrpcReceiver } from '../grpc.js';
import { receiverRouter } from '../route.js';
import { Gate, type Outcome, type StoreState } from '../gate.js';
import type { FromThread, ProbeAnswer, ThreadData, ToThread } from './messages.js';

/** The in-flight gauge is told at most this often (the budget changes with every chunk). */
const INFLIGHT_EVERY_MS = 100;

const port = parentPort!;
const data = workerData as ThreadData;
const post = (m: FromThread) => {
  port.postMessage(m);
};

// Ingest waits for the exporter's loop: /healthz, /metrics and the API come first (threads.ts).
if (data.lowerThreads) lowerThisThread();

/** Requests to the exporter's loop, answered by id. */
const waiting = new Map<number, (answer: unknown) => void>();
let nextId = 1;
function ask<T>(message: (id: number) => FromThread): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve) => {
    waiting.set(id, resolve as (answer: unknown) => void);
    post(message(id));
  });
}

/** The exporter's state as it last told it (ToThread 'state'). */
const state = { accepting: true, store: 'starting' as StoreState, overMemory: false };
let inflightTimer: NodeJS.Timeout | null = null;
const budget: ByteBudget = new ByteBudget(data.limits.maxInflightBytes, () => {
  inflightTimer ??= setTimeout(() => {
    inflightTimer = null;
    post({ type: 'inflight', bytes: budget.inUse });
  }, INFLIGHT_EVERY_MS);
});
const decoder = new BodyDecoder(data.offThreadBytes, data.limits.maxBodyBytes, data.lowerThreads);
// The same gate as on the exporter's loop; its counts and the store are the exporter's.
const gate = new Gate(data.limits, budget, decoder, data, {
  state: () => state,
  refused: (reason) => {
    post({ type: 'refused', reason });
  },
  unreadable: () => {
    post({ type: 'unreadable' });
  },
  accept: async (converted) => {
    const outcome = await ask<Outcome | { error: string }>((id) => ({
      type: 'accept',
      id,
      converted,
    }));
    if ('error' in outcome) throw new Error(outcome.error);
    return outcome;
  },
});

const probe = (name: 'readyz' | 'status', authorization?: string) =>
  ask<ProbeAnswer>((id) => ({ type: 'probe', id, name, authorization }));

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use((_req, res, next) => {
  if (!state.accepting) res.set('connection', 'close');
  next();
});
app.use(receiverRouter(gate));
// Liveness answers here: this loop is what takes the spans. Readiness is the exporter's.
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
// The exporter's own answers; /status checks the metrics token there.
const answer = (name: 'readyz' | 'status') => async (req: Request, res: Response) => {
  const a = await probe(name, req.get('authorization'));
  if (a.status === 401) res.set('www-authenticate', 'Bearer realm="acktrail"');
  res.status(a.status).json(a.body);
};
app.get('/readyz', answer('readyz'));
app.get('/status', answer('status'));

const server = await listenHttp(app, data.httpPort, data.host, data.keepAliveTimeoutMs);
const inFlight = requestsInFlight([server]);
const grpc = data.grpcPort === null ? null : new OtlpGrpcReceiver(gate);
const grpcPort = grpc ? await grpc.listen(data.grpcPort!, data.host) : null;
const address = server.address();
post({
  type: 'listening',
  http: typeof address === 'object' && address ? address.port : data.httpPort,
  grpc: grpcPort,
});

/** Stops taking requests, lets those in flight end within `graceMs`, then closes the rest. */
async function close(graceMs: number): Promise<void> {
  state.accepting = false;
  server.close();
  server.closeIdleConnections();
  const grpcClosed = grpc?.close(graceMs);
  await inFlight.drained(Date.now() + graceMs);
  server.closeAllConnections();
  await grpcClosed;
  await decoder.close();
  post({ type: 'closed' });
}

port.on('message', (m: ToThread) => {
  switch (m.type) {
    case 'state':
      state.accepting = m.accepting;
      state.store = m.store;
      state.overMemory = m.overMemory;
      budget.setOverMemory(m.overMemory);
      return;
    case 'outcome':
    case 'probe': {
      const resolve = waiting.get(m.id);
      waiting.delete(m.id);
      resolve?.(m.type === 'outcome' ? m.outcome : m.answer);
      return;
    }
    case 'close':
      void close(m.graceMs);
  }
});
