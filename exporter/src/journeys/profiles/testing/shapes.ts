// Every SDK's shapes, found beside its profile (<id>/<id>.shape.ts) for each profile the registry
// lists: the face tests and benches import (@acktrail/exporter/testing/sdk-shapes). What a shape's
// SDK records is read from its own spans and its profile, never from a table kept beside them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MODULES, PROFILES } from '../registry.js';
import { readSpan } from '../read.js';
import type { ProfileId } from '../profile.js';
import { received, shapeSpans, type Message, type SdkShape } from './shape.js';

export * from './shape.js';

/** The profiles without a shape here, and why (registry.test.ts holds every other to one). */
export const WITHOUT_SHAPE: Partial<Record<ProfileId, string>> = {
  acktrail: 'its spans are written by instrument/ in this repository, whose tests emit them',
  unknown: 'no SDK: the conventions alone read its spans',
};

/** Where a profile's shapes are, whether or not they exist. */
export const shapeFile = (id: string): string =>
  fileURLToPath(new URL(`../${id}/${id}.shape.ts`, import.meta.url));

async function shapesOf(id: ProfileId): Promise<readonly SdkShape[]> {
  if (!existsSync(shapeFile(id))) return [];
  const module = (await import(`../${id}/${id}.shape.js`)) as { SHAPES: readonly SdkShape[] };
  return module.SHAPES;
}

/** Every shape, in the registry's order. */
export const SHAPE_LIST: readonly SdkShape[] = (
  await Promise.all(MODULES.map((m) => shapesOf(m.profile.id)))
).flat();

/** Every shape by the name tests use for it (its profile's id, or a variant's). */
export const SHAPES: Readonly<Record<string, SdkShape>> = Object.fromEntries(
  SHAPE_LIST.map((s) => [s.name, s]),
);
export type ShapeName = string;
export const SHAPE_NAMES: readonly ShapeName[] = SHAPE_LIST.map((s) => s.name);

/** The shape of this name, or an error naming the ones there are. */
export function shapeNamed(name: string): SdkShape {
  const shape = SHAPES[name];
  if (!shape) throw new Error(`no SDK shape "${name}": ${SHAPE_NAMES.join(', ')}`);
  return shape;
}

const PROBE: Message = {
  exchange: 'probe',
  routingKey: 'probe.key',
  queue: 'probe.queue',
  messageId: 'probe-message-id',
  deliveryTag: 1,
  bodySize: 1,
};

/** Whether the SDK records the message id a publisher sets: support then finds it by that id. */
export const recordsMessageId = (shape: SdkShape): boolean =>
  readSpan(received(shapeSpans(shape, PROBE, [], 0)[0]!)).eventId === PROBE.messageId;

/** Whether the SDK's spans record how a delivery was settled (else the broker's evidence does). */
export const recordsSettle = (shape: SdkShape): boolean =>
  PROFILES[shape.profile].settle !== 'none';
