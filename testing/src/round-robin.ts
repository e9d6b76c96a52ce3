// A load balancer for tests: each request goes to the next of several exporters in turn (what a
// round-robin HTTP balancer in front of replicas does), and how many each got is counted.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { forward } from './fault-proxy.js';

export class RoundRobinProxy {
  /** Requests sent to each target, by index. */
  readonly counts: number[];
  private next = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    targets: readonly string[],
  ) {
    this.counts = targets.map(() => 0);
  }

  static async start(targets: readonly string[]): Promise<RoundRobinProxy> {
    const state: { proxy: RoundRobinProxy | null } = { proxy: null };
    const server = createServer((req, res) => {
      const proxy = state.proxy!;
      const i = proxy.next++ % targets.length;
      proxy.counts[i]!++;
      forward(req, res, new URL(targets[i]!));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    state.proxy = new RoundRobinProxy(server, `http://127.0.0.1:${port}`, targets);
    return state.proxy;
  }

  async close(): Promise<void> {
    this.server.close();
    this.server.closeAllConnections();
    await once(this.server, 'close');
  }
}
