// Calls the mail provider with an idempotency key and classifies the answer.
export type ProviderOutcome =
  'success' | 'transient_error' | 'permanent_error' | 'timeout' | 'idempotent_replay';

export interface ProviderResult {
  outcome: ProviderOutcome;
  statusCode: number | null;
  durationMs: number;
  /** Short reason for logs and the dead-letter header; never contains the address. */
  detail: string;
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAY_HEADER = 'Idempotent-Replayed';

export async function sendConfirmationMail(
  baseUrl: string,
  timeoutMs: number,
  message: { to: string; orderId: number; idempotencyKey: string },
): Promise<ProviderResult> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  try {
    const res = await fetch(new URL('/v1/messages', baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [IDEMPOTENCY_HEADER]: message.idempotencyKey },
      body: JSON.stringify({
        to: message.to,
        template: 'order-confirmation',
        order_id: message.orderId,
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    const durationMs = elapsed();
    if (res.ok) {
      const replay = res.headers.get(REPLAY_HEADER) === 'true';
      return {
        outcome: replay ? 'idempotent_replay' : 'success',
        statusCode: res.status,
        durationMs,
        detail: 'sent',
      };
    }
    const detail = `provider ${res.status}${body.error ? `: ${body.error}` : ''}`;
    const transient = res.status >= 500 || res.status === 429 || res.status === 408;
    return {
      outcome: transient ? 'transient_error' : 'permanent_error',
      statusCode: res.status,
      durationMs,
      detail,
    };
  } catch (err) {
    const durationMs = elapsed();
    if (err instanceof DOMException && err.name === 'TimeoutError') {
      return {
        outcome: 'timeout',
        statusCode: null,
        durationMs,
        detail: `provider timeout after ${timeoutMs} ms`,
      };
    }
    return {
      outcome: 'transient_error',
      statusCode: null,
      durationMs,
      detail: 'provider unreachable',
    };
  }
}
