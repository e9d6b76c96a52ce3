// The OTLP/gRPC receiver's connections, bounded so that no one can take them from the SDKs. Only
// connections that have not signed in (opened an admitted call: the token checked, when one is
// set) are limited per address: at most MAX_UNSIGNED_PER_PEER from one address, and a new one past
// it closes that address's oldest unsigned one, never a signed-in one; so idle connections from an
// address shared with a sender (SNAT, a node agent) cannot lock the sender out. In all at most
// MAX_CONNECTIONS: a new one past it closes the oldest unsigned connection of anyone, or is itself
// closed when every one has signed in. A connection that has not signed in within SIGN_IN_MS of
// opening is closed; one with no admitted call for `idleMs` is closed; every one after
// MAX_CONNECTION_AGE_MS (clients reconnect, which lets load spread). Streams refused on their
// headers (an unknown path, no token) refresh nothing: a client that sends one HEADERS frame every
// 20 s holds no slot.
import type { Socket } from 'node:net';
import type { Http2Server, Http2Session } from 'node:http2';

/** Connections at once. */
export const MAX_CONNECTIONS = 64;
/**
 * Connections not signed in from one address at once. SDKs open one per exporter; a proxy or
 * Collector in front may open several, so a quarter of all rather than a handful.
 */
export const MAX_UNSIGNED_PER_PEER = 16;
/** A connection must open an admitted call this soon, or it is closed. */
export const SIGN_IN_MS = 5_000;
const MAX_CONNECTION_AGE_MS = 10 * 60_000;

/** A connection's key: its peer's address and port (a session's socket is a proxy of its own). */
const keyOf = (s: { remoteAddress?: string | undefined; remotePort?: number | undefined }) =>
  `${s.remoteAddress ?? ''}\u0000${s.remotePort ?? 0}`;

interface Tracked {
  /** Closes it when nothing admitted came for a while (first SIGN_IN_MS, then idleMs). */
  idle: NodeJS.Timeout;
  age: NodeJS.Timeout;
}

export class GrpcSessions {
  private readonly tracked = new Map<Http2Session, Tracked>();
  /** Every open connection (by keyOf), oldest first, and whether it has signed in. */
  private readonly sockets = new Map<string, { socket: Socket; peer: string; signedIn: boolean }>();

  /** @param idleMs a connection with no admitted call this long is closed */
  constructor(
    server: Http2Server,
    private readonly idleMs: number,
  ) {
    server.on('connection', (socket: Socket) => {
      this.admitted(socket);
    });
    server.on('session', (session) => {
      this.track(session);
    });
  }

  /** The sessions open now. */
  get all(): IterableIterator<Http2Session> {
    return this.tracked.keys();
  }

  /** A call on `session` was admitted: the session is in use; its idle bound is idleMs now. */
  used(session: Http2Session): void {
    const t = this.tracked.get(session);
    const s = this.sockets.get(keyOf(session.socket));
    if (!t) return;
    if (s?.signedIn) {
      t.idle.refresh();
      return;
    }
    if (s) s.signedIn = true;
    clearTimeout(t.idle);
    t.idle = setTimeout(() => {
      session.close();
    }, this.idleMs).unref();
  }

  /**
   * Takes a new connection in: past its address's unsigned bound, that address's oldest unsigned
   * connection goes; past the bound of all, anyone's oldest unsigned one (or this one).
   */
  private admitted(socket: Socket): void {
    const peer = socket.remoteAddress ?? '';
    const key = keyOf(socket);
    this.sockets.set(key, { socket, peer, signedIn: false });
    socket.once('close', () => {
      this.sockets.delete(key);
    });
    const unsigned = [...this.sockets.values()].filter((s) => !s.signedIn);
    const own = unsigned.filter((s) => s.peer === peer);
    if (own.length > MAX_UNSIGNED_PER_PEER) this.evict(own[0]!.socket);
    else if (this.sockets.size > MAX_CONNECTIONS) this.evict(unsigned[0]?.socket ?? socket);
  }

  private evict(socket: Socket): void {
    this.sockets.delete(keyOf(socket));
    socket.destroy();
  }

  private track(session: Http2Session): void {
    const t: Tracked = {
      idle: setTimeout(() => {
        session.close();
      }, SIGN_IN_MS).unref(),
      age: setTimeout(() => {
        session.close();
      }, MAX_CONNECTION_AGE_MS).unref(),
    };
    this.tracked.set(session, t);
    session.once('close', () => {
      clearTimeout(t.idle);
      clearTimeout(t.age);
      this.tracked.delete(session);
    });
    session.on('error', () => undefined);
  }
}
