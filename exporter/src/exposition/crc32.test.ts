import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { crc32Combine } from './crc32.js';

test("the CRC-32 of two parts combined is the CRC-32 of their concatenation, zlib's own", () => {
  const sizes = [0, 1, 2, 3, 7, 8, 255, 4096, 65_537, 3 * 1024 * 1024 + 5];
  for (const a of sizes)
    for (const b of sizes) {
      const [x, y] = [randomBytes(a), randomBytes(b)];
      assert.equal(
        crc32Combine(crc32(x), crc32(y), y.length),
        crc32(Buffer.concat([x, y])),
        `${a} then ${b} bytes`,
      );
    }
});

test('folded over many parts, as a scrape joins its pieces', () => {
  const parts = Array.from({ length: 40 }, (_, i) => randomBytes(i * 997));
  const folded = parts.reduce((crc, p) => crc32Combine(crc, crc32(p), p.length), 0);
  assert.equal(folded, crc32(Buffer.concat(parts)));
});

// docs/operations.md: this port stays only while Node's zlib lacks crc32_combine.
test("Node's zlib still has no crc32_combine (when it has, use it and drop this port)", async () => {
  const zlib: Record<string, unknown> = { ...(await import('node:zlib')) };
  const combine = Object.keys(zlib).filter((k) => /combine/i.test(k));
  assert.deepEqual(combine, [], `Node ${process.version} exposes ${combine.join(', ')}`);
});
