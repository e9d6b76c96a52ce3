// Which transport carries Celery's events, by the broker URL's scheme, as Celery chooses it.
import type { Logger } from 'pino';
import type { Health } from '../runtime/health.js';
import { CeleryAmqpConsumer } from './amqp.js';
import type { CeleryIntake, CeleryTransport } from './intake.js';
import { CeleryRedisConsumer } from './redis.js';
import type { MemoryBudget } from '../runtime/memory.js';

export function celeryTransport(
  intake: CeleryIntake,
  health: Health,
  log: Logger,
  /** Over it, the AMQP consumer pauses; over Redis (pub/sub) a pause would lose events. */
  memory: MemoryBudget | null = null,
): CeleryTransport {
  const scheme = new URL(intake.settings.url).protocol;
  return scheme === 'redis:' || scheme === 'rediss:' || scheme === 'sentinel:'
    ? new CeleryRedisConsumer(intake, health, log)
    : new CeleryAmqpConsumer(intake, health, log, memory);
}
