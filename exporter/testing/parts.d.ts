export { PausableConsumer } from '../src/broker/consumer.js';
export { keyId } from '../src/deadletters/model/seal.js';
export { DeadLetterStore } from '../src/deadletters/store/store.js';
