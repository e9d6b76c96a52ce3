// Instrumentation profiles: who wrote a span, what it records and how to read it. One folder per
// SDK (registry.ts lists them); read.ts reads a span by the one that wrote it. The journey model
// reads the profiles' facts (PROFILES, what each records); spans/ reads spans through readSpan.
export {
  GAPS,
  PROFILE_IDS,
  SETTLE_RECORDINGS,
  type Gap,
  type Profile,
  type ProfileId,
  type SettleRecording,
} from './profile.js';
export { PROFILES, sdkName } from './registry.js';
export { profileOf, readSpan, type Reading, type SettleReading } from './read.js';
export { first } from './semconv.js';
export {
  DecodeError,
  MAX_LINKS,
  MAX_TRACE_STATE,
  NO_SCOPE,
  type AttributeValue,
  type ReceivedSpan,
  type SpanLink,
  type SpanScope,
} from './span.js';
