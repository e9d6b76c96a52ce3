// The effective configuration as check-config prints it: tokens, secrets and passwords, and the
// password inside any URL (user:pass@ and ?password=), and key material, replaced by ****.
const SECRET_KEY = /token|secret|password/i;
/** Query parameters of a connection URL that hold a secret (libpq: password, sslpassword). */
const SECRET_PARAM = /pass(word|wd)?|pwd|secret|token|key/i;
const MASK = '****';

/** Each URL of a list too: Kombu's sentinel and failover brokers are `;`-separated URLs. */
function maskUrls(value: string): string {
  return value.includes(';') ? value.split(';').map(maskUrl).join(';') : maskUrl(value);
}

function maskUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    const params = [...url.searchParams.keys()].filter((k) => SECRET_PARAM.test(k));
    if (url.password === '' && params.length === 0) return value;
    if (url.password !== '') url.password = MASK;
    for (const k of params) url.searchParams.set(k, MASK);
    return url.toString();
  } catch {
    return value;
  }
}

export function masked(value: unknown, key = ''): unknown {
  // Key material (the dead-letter key) is never printed, whatever its key is called.
  if (Buffer.isBuffer(value)) return MASK;
  if (typeof value === 'string') return SECRET_KEY.test(key) ? MASK : maskUrls(value);
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (value instanceof RegExp) return value.source;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}
