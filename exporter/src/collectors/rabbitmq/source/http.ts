// HTTP reads from the broker: the management API (JSON) and the rabbitmq_prometheus endpoint
// (text). Credentials in the URL become a Basic authorization header (fetch refuses them inline).

export class SourceHttpError extends Error {
  readonly code = 'SOURCE_HTTP';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function request(base: string, path: string): { url: URL; headers: Headers } {
  const url = new URL(path, base);
  // Uncompressed: gzip would cost the broker (the scarce resource) CPU on every scrape, and us
  // CPU to inflate, for bytes that usually cross a local network.
  const headers = new Headers({ 'accept-encoding': 'identity' });
  if (url.username) {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    headers.set('authorization', `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`);
    url.username = '';
    url.password = '';
  }
  return { url, headers };
}

export async function getText(base: string, path: string, signal: AbortSignal): Promise<string> {
  const { url, headers } = request(base, path);
  const res = await fetch(url, { headers, signal });
  const text = await res.text();
  if (!res.ok) throw new SourceHttpError(`GET ${url.pathname} answered ${res.status}`, res.status);
  return text;
}

export async function getJson<T>(base: string, path: string, signal: AbortSignal): Promise<T> {
  return JSON.parse(await getText(base, path, signal)) as T;
}

/**
 * The management API of a cluster: the configured URL first, and when it does not answer (its
 * node is down), the management listeners of the other nodes, with the configured credentials.
 * Any node's management API answers for the whole cluster. A 4xx is an answer, not a node down.
 */
export class ManagementApi {
  private others: string[] = [];
  private preferred: string;

  constructor(readonly configured: string) {
    this.preferred = configured;
  }

  /** The other nodes' management listeners (`http://host:port`), as discovery found them. */
  setNodes(urls: readonly string[]): void {
    const base = new URL(this.configured);
    this.others = urls.flatMap((u) => {
      const url = new URL(u);
      url.username = base.username;
      url.password = base.password;
      return url.host === base.host ? [] : [url.toString()];
    });
    if (this.preferred !== this.configured && !this.others.includes(this.preferred))
      this.preferred = this.configured;
  }

  async getJson<T>(path: string, signal: AbortSignal): Promise<T> {
    const bases = [
      this.preferred,
      ...[this.configured, ...this.others].filter((b) => b !== this.preferred),
    ];
    let lastError: unknown;
    for (const base of bases) {
      if (signal.aborted) break;
      try {
        const value = await getJson<T>(base, path, signal);
        this.preferred = base;
        return value;
      } catch (err) {
        if (err instanceof SourceHttpError && err.status < 500) throw err;
        lastError = err;
      }
    }
    throw lastError ?? signal.reason;
  }
}
