export * from '../src/journeys/profiles/testing/shapes.js';
