// What a parked dead letter says (properties, headers, body) is sealed with AES-256-GCM under
// ACKTRAIL_DEAD_LETTER_KEY before it reaches the store: a fresh 96-bit nonce per message, the
// 128-bit tag beside it, and the message's queue as associated data (a sealed body moved to
// another row's queue does not open). The key id (a hash prefix) says which key sealed a row.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const NONCE = 12;
const TAG = 16;

export const keyId = (key: Buffer): string =>
  createHash('sha256').update(key).digest('hex').slice(0, 16);

/** A row sealed with a key this exporter does not hold: says which, so the key can be found. */
export class UnknownKeyError extends Error {
  readonly code = 'UNKNOWN_KEY';
  constructor(
    readonly keyId: string,
    currentId: string,
  ) {
    super(
      `sealed with key ${keyId}, which is neither ACKTRAIL_DEAD_LETTER_KEY (key ${currentId}) nor in ACKTRAIL_DEAD_LETTER_KEYS: give that key in ACKTRAIL_DEAD_LETTER_KEYS to open it`,
    );
  }
}

export function seal(key: Buffer, plain: Buffer, aad: string): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), body]);
}

/** Throws when the key is another one or the sealed bytes were changed. */
export function unseal(key: Buffer, sealed: Buffer, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(NONCE, NONCE + TAG));
  return Buffer.concat([decipher.update(sealed.subarray(NONCE + TAG)), decipher.final()]);
}
