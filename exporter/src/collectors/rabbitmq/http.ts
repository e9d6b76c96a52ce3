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
