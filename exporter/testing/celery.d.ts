export { eventQueueArguments } from '../src/celery/amqp.js';
export { parseBody } from '../src/celery/events.js';
export { envelope } from '../src/celery/kombu-redis.js';
export { taskStep } from '../src/celery/steps.js';
