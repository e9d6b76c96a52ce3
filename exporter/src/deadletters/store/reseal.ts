// `acktrail dead-letters reseal`: after a key rotation (the new key in ACKTRAIL_DEAD_LETTER_KEY,
// the old ones in ACKTRAIL_DEAD_LETTER_KEYS), seals every stored dead letter again under the
// current key, in keyset pages, each row changed only if nobody changed it meanwhile. Afterwards
// the old keys can go. Rows sealed with a key that is not given are counted, never changed.
import type { Database } from '../../db/checkout.js';
import { keyId, seal, unseal } from '../model/seal.js';

const PAGE = 500;

export interface ResealProgress {
  resealed: number;
  /** Sealed with a key that is neither the current one nor an old one given. */
  unknownKey: number;
  /** Rows sealed under another key than the current one when the run started. */
  total: number;
}

export async function reseal(
  pool: Database,
  current: Buffer,
  old: Buffer[],
  onProgress: (p: ResealProgress) => void,
): Promise<ResealProgress> {
  const currentId = keyId(current);
  const byId = new Map(old.map((k) => [keyId(k), k]));
  const count = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM dead_letters WHERE sealed IS NOT NULL AND key_id <> $1',
    [currentId],
  );
  const progress: ResealProgress = { resealed: 0, unknownKey: 0, total: count.rows[0]?.n ?? 0 };
  let after = '0';
  for (;;) {
    const page = await pool.query<{
      id: string;
      vhost: string;
      queue: string;
      key_id: string;
      sealed: Buffer;
    }>(
      `SELECT id::text, vhost, queue, key_id, sealed FROM dead_letters
        WHERE sealed IS NOT NULL AND key_id <> $1 AND id > $2 ORDER BY dead_letters.id LIMIT $3`,
      [currentId, after, PAGE],
    );
    if (page.rows.length === 0) break;
    for (const row of page.rows) {
      after = row.id;
      const key = byId.get(row.key_id);
      if (!key) {
        progress.unknownKey++;
        continue;
      }
      const aad = `${row.vhost}/${row.queue}`;
      const again = seal(current, unseal(key, row.sealed, aad), aad);
      const changed = await pool.query(
        `UPDATE dead_letters SET sealed = $2, key_id = $3
          WHERE id = $1 AND key_id = $4 AND sealed IS NOT NULL`,
        [row.id, again, currentId, row.key_id],
      );
      progress.resealed += changed.rowCount ?? 0;
    }
    onProgress({ ...progress });
  }
  return progress;
}
