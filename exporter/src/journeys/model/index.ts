// The journey model: the one place that decides what a step means. How a delivery was settled
// (settle.ts), what the broker does with a message its consumer did not ack (fate.ts), what a
// step's anomaly is (anomaly.ts), when the work is done (results.ts), the ordering of an
// aggregate's versions (ordering.ts) and each journey kind (facts.ts, kinds.ts). The receiver,
// the store, the assembler and the metrics all call it; none decides any of it on its own.
export { stepAnomaly } from './anomaly.js';
export {
  REJECT_FATES,
  anomalyOfFate,
  applyDeliveryLimits,
  fateOfStored,
  limitedReturns,
  rejectFate,
  type Fate,
  type RejectFate,
  type Return,
} from './fate.js';
export { factsOf, dlqDelivery, type Delivery, type JourneyFacts } from './facts.js';
export {
  JOURNEY_KINDS,
  celeryKinds,
  classify,
  type Classified,
  type JourneyKind,
  type KindOptions,
} from './kinds.js';
export {
  ORDERING_KINDS,
  findOrdering,
  type OrderingFinding,
  type OrderingKind,
  type VersionedDelivery,
} from './ordering.js';
export {
  NO_RESULT_WORDS,
  isDone,
  meaningOf,
  type ResultMeaning,
  type ResultWords,
} from './results.js';
export { SETTLE_RECORDINGS, outcomeOf, requeueUnknown, type SettleRecording } from './settle.js';
export { BROKER_REASONS, isOwnWord, parkedReason, type Reason, type ReasonBy } from './reason.js';
export {
  NO_SETTLE_EVIDENCE,
  inferSettles,
  type CounterReading,
  type SettleEvidence,
  type WatchedDeadLetters,
} from './inference.js';
export {
  NO_EVIDENCE,
  applyBrokerEvidence,
  type BrokerEvidence,
  type ParkedRecord,
} from './evidence.js';
export {
  GAPS,
  PROFILES,
  PROFILE_IDS,
  sdkName,
  type Gap,
  type Profile,
  type ProfileId,
} from '../profiles/index.js';
