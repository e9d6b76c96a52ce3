// The Redis subscriber's lease (redis.ts): one exporter replica subscribes to Celery's events at a
// time, holding a key in Redis (SET PX, renewed), so that no event is counted twice.
import type { Redis } from 'ioredis';

// Take the lease when nobody holds it; renew it only while it is still ours (another replica may
// hold it after a long pause); take it again when nobody has it (Redis restarted empty), keeping
// the subscription. A replica's lease always expires: a key without expiry is not one (anyone
// who can write to a shared Redis could set it for good and silence acktrail), so it is taken
// and said (2).
const ELECT = `local v = redis.call('get', KEYS[1])
if v == ARGV[1] then redis.call('pexpire', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if redis.call('pttl', KEYS[1]) == -1 then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end
return 0`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** Takes or renews the lease `key` for `token`; says whether it is ours now, and how. */
export async function takeLease(
  redis: Redis,
  key: string,
  token: string,
  leaseMs: number,
): Promise<'ours' | 'from a squatter' | 'held by another'> {
  const taken = await redis.eval(ELECT, 1, key, token, leaseMs);
  return taken === 2 ? 'from a squatter' : taken === 1 ? 'ours' : 'held by another';
}

/** Gives the lease up, if it is still ours. */
export async function releaseLease(redis: Redis, key: string, token: string): Promise<void> {
  await redis.eval(RELEASE, 1, key, token);
}
