// Single parts tests forge against: the AMQP consumer that pauses under the memory budget, the
// dead-letter seal's key id and the dead-letter store: @acktrail/exporter/testing/parts.
export { PausableConsumer } from '../src/broker/consumer.js';
export { keyId } from '../src/deadletters/model/seal.js';
export { DeadLetterStore } from '../src/deadletters/store/store.js';
//# sourceMappingURL=parts.js.map