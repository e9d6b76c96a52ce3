// The effective configuration as check-config prints it: tokens, secrets and passwords, and the
// password inside any URL, and key material, replaced by ****.
const SECRET_KEY = /token|secret|password/i;
const MASK = '****';

function maskUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    if (url.password === '') return value;
    url.password = MASK;
    return url.toString();
  } catch {
    return value;
  }
}

export function masked(value: unknown, key = ''): unknown {
  // Key material (the dead-letter key) is never printed, whatever its key is called.
  if (Buffer.isBuffer(value)) return MASK;
  if (typeof value === 'string') return SECRET_KEY.test(key) ? MASK : maskUrl(value);
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (value instanceof RegExp) return value.source;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}
