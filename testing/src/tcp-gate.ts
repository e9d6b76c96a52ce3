// A TCP pass-through in front of a real service (PostgreSQL) that a test can shut and open again:
// shut, it cuts every connection and refuses new ones, as a service that went down would.
import { once } from 'node:events';
import net from 'node:net';

export class TcpGate {
  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly sockets: Set<net.Socket>,
    private readonly state: { open: boolean },
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpGate> {
    const sockets = new Set<net.Socket>();
    const state = { open: true };
    const server = net.createServer((client) => {
      if (!state.open) {
        client.destroy();
        return;
      }
      const upstream = net.connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new TcpGate(server, (server.address() as net.AddressInfo).port, sockets, state);
  }

  /** Cuts every connection and refuses new ones until open(). */
  shut(): void {
    this.state.open = false;
    for (const s of this.sockets) s.destroy();
  }

  reopen(): void {
    this.state.open = true;
  }

  async close(): Promise<void> {
    this.shut();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}
