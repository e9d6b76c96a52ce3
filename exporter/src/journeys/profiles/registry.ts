// Every instrumentation acktrail reads spans of, one folder each, in the order they claim a span:
// acktrail's own attributes first, the conventions alone (unknown) last. Adding an SDK is its
// folder (profile.ts, <id>.shape.ts, <id>.test.ts) and one line here; registry.test.ts fails
// when a profile lacks its shape or its tests.
import { acktrail } from './acktrail/profile.js';
import { dotnetClient } from './dotnet-client/profile.js';
import { javaAgent } from './java-agent/profile.js';
import { masstransit } from './masstransit/profile.js';
import { nodeAmqplib } from './node-amqplib/profile.js';
import type { Profile, ProfileId, ProfileModule } from './profile.js';
import { pythonAioPika } from './python-aio-pika/profile.js';
import { pythonPika } from './python-pika/profile.js';
import { rubyBunny } from './ruby-bunny/profile.js';
import { springAmqp } from './spring-amqp/profile.js';
import { unknown } from './unknown/profile.js';

export const UNKNOWN = unknown;

export const MODULES: readonly ProfileModule[] = [
  acktrail,
  nodeAmqplib,
  javaAgent,
  springAmqp,
  dotnetClient,
  pythonPika,
  pythonAioPika,
  rubyBunny,
  masstransit,
  UNKNOWN,
];

/** Each profile's facts by its id. */
export const PROFILES = Object.fromEntries(MODULES.map((m) => [m.profile.id, m.profile])) as Record<
  ProfileId,
  Profile
>;

/** An instrumentation's name as its users know it, from the id a step carries. */
export const sdkName = (id: string | null): string =>
  id !== null && Object.hasOwn(PROFILES, id)
    ? PROFILES[id as ProfileId].sdk
    : 'its instrumentation';
