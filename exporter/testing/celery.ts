// The Celery consumer's parts that tests and benches drive directly (a kombu envelope, the event
// queue's arguments, an event's parsing and its step): @acktrail/exporter/testing/celery.
export { eventQueueArguments } from '../src/celery/amqp.js';
export { parseBody } from '../src/celery/events.js';
export { envelope } from '../src/celery/kombu-redis.js';
export { taskStep } from '../src/celery/steps.js';
