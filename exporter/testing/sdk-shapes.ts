// SDK shapes, each beside its profile: @acktrail/exporter/testing/sdk-shapes.
export * from '../src/journeys/profiles/testing/shapes.js';
