// The recording sampler and the journey processor on a real TracerProvider: a journey span the
// app's sampler drops reaches acktrail's exporter alone, marked acktrail.trace.recorded_only=true; the
// app's own processor gets exactly its sample; other spans keep the app's decision.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT_CONTEXT, SpanKind, TraceFlags } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  SamplingDecision,
  SimpleSpanProcessor,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR } from '@acktrail/conventions';
import { JourneySpanProcessor, journeySampler, samplerFromEnv } from './sampling.js';

function provider(app: Sampler, sampled?: boolean) {
  const backend = new InMemorySpanExporter();
  const acktrail = new InMemorySpanExporter();
  const p = new TracerProvider({
    sampler: journeySampler(app),
    spanProcessors: [
      new SimpleSpanProcessor({ exporter: backend }),
      new JourneySpanProcessor({ exporter: acktrail, sampled, scheduledDelayMillis: 10 }),
    ],
  });
  return { tracer: p.getTracer('t'), backend, acktrail, flush: () => p.forceFlush() };
}

test('sampled out: journey spans reach acktrail alone, marked; other spans nowhere', async () => {
  const { tracer, backend, acktrail, flush } = provider(new AlwaysOffSampler());
  tracer.startSpan('publish orders', { kind: SpanKind.PRODUCER }).end();
  tracer.startSpan('work', { attributes: { [ATTR.stage]: 'provider.call' } }).end();
  tracer.startSpan('GET /', { kind: SpanKind.SERVER }).end();
  tracer.startSpan('query', { attributes: { 'messaging.system': 'rabbitmq' } }).end();
  await flush();
  assert.equal(backend.getFinishedSpans().length, 0);
  const got = acktrail.getFinishedSpans();
  assert.deepEqual(got.map((s) => s.name).sort(), ['publish orders', 'query', 'work']);
  for (const s of got) assert.equal(s.attributes[ATTR.recordedOnly], true);
});

test('sampled in: the app pipeline gets it unchanged; acktrail too only when asked', async () => {
  for (const sampled of [false, true]) {
    const { tracer, backend, acktrail, flush } = provider(
      samplerFromEnvWith('always_on', undefined),
      sampled,
    );
    tracer.startSpan('q process', { kind: SpanKind.CONSUMER }).end();
    await flush();
    assert.equal(backend.getFinishedSpans().length, 1);
    const got = acktrail.getFinishedSpans();
    assert.equal(got.length, sampled ? 1 : 0);
    if (sampled) assert.equal(got[0]!.attributes[ATTR.recordedOnly], undefined);
    assert.equal(backend.getFinishedSpans()[0]!.spanContext().traceFlags, TraceFlags.SAMPLED);
  }
});

function samplerFromEnvWith(name: string | undefined, arg: string | undefined): Sampler {
  const saved = [process.env.OTEL_TRACES_SAMPLER, process.env.OTEL_TRACES_SAMPLER_ARG];
  const set = (k: string, v: string | undefined) =>
    v === undefined ? Reflect.deleteProperty(process.env, k) : (process.env[k] = v);
  set('OTEL_TRACES_SAMPLER', name);
  set('OTEL_TRACES_SAMPLER_ARG', arg);
  try {
    return samplerFromEnv();
  } finally {
    set('OTEL_TRACES_SAMPLER', saved[0]);
    set('OTEL_TRACES_SAMPLER_ARG', saved[1]);
  }
}

test('OTEL_TRACES_SAMPLER and _ARG, as the SDK environment specification names them', () => {
  const decide = (s: Sampler, traceId: string) =>
    s.shouldSample(ROOT_CONTEXT, traceId, 'x', SpanKind.INTERNAL, {}, []).decision;
  const low = '00000000000000000000000000000001';
  // TraceIdRatioBasedSampler compares the xor of the id's four 32-bit words with ratio x 2^32.
  const high = 'ffffffff000000000000000000000000';
  assert.equal(
    decide(samplerFromEnvWith(undefined, undefined), high),
    SamplingDecision.RECORD_AND_SAMPLED,
  );
  assert.equal(
    decide(samplerFromEnvWith('always_off', undefined), low),
    SamplingDecision.NOT_RECORD,
  );
  const quarter = samplerFromEnvWith('parentbased_traceidratio', '0.25');
  assert.equal(decide(quarter, low), SamplingDecision.RECORD_AND_SAMPLED);
  assert.equal(decide(quarter, high), SamplingDecision.NOT_RECORD);
  assert.equal(decide(samplerFromEnvWith('traceidratio', '0'), low), SamplingDecision.NOT_RECORD);
  const warnings: string[] = [];
  const unknown = (() => {
    process.env.OTEL_TRACES_SAMPLER = 'jaeger_remote_typo';
    try {
      return samplerFromEnv((m) => warnings.push(m));
    } finally {
      delete process.env.OTEL_TRACES_SAMPLER;
    }
  })();
  assert.equal(decide(unknown, high), SamplingDecision.RECORD_AND_SAMPLED);
  assert.match(warnings[0]!, /jaeger_remote_typo/);
});
