// An HTTP proxy in front of a real endpoint (the broker's management API or its Prometheus
// endpoint) that can be told to answer 500 or to stall: how a test makes a real source misbehave.
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { once } from 'node:events';

export type ProxyMode = 'pass' | 'error' | 'stall';

/** Passes a request on to `upstream` as it came, and its answer back (502 when it fails). */
export function forward(req: IncomingMessage, res: ServerResponse, upstream: URL): void {
  const out = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: req.url,
      method: req.method,
      headers: req.headers,
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  out.on('error', () => res.writeHead(502).end());
  req.pipe(out);
}

export class FaultProxy {
  mode: ProxyMode = 'pass';
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<FaultProxy> {
    const upstream = new URL(target);
    const state: { proxy: FaultProxy | null } = { proxy: null };
    const server = createServer((req, res) => {
      const proxy = state.proxy!;
      if (proxy.mode === 'error') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('injected failure');
        return;
      }
      if (proxy.mode === 'stall') return; // never answers; the client's timeout must act
      forward(req, res, upstream);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const auth = upstream.username ? `${upstream.username}:${upstream.password}@` : '';
    state.proxy = new FaultProxy(server, `http://${auth}127.0.0.1:${port}`);
    return state.proxy;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close').catch(() => undefined);
  }
}
