// Instrumentation profiles: who wrote a span and what it records (journeys/model/profiles.ts),
// read in one place (read.ts).
export {
  GAPS,
  PROFILES,
  PROFILE_IDS,
  type Gap,
  type Profile,
  type ProfileId,
} from '../../model/profiles.js';
export { first, profileOf, readSpan, type Reading, type SettleReading } from './read.js';
