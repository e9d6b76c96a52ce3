export declare const FLOOD_SPANS = 1000;
export declare const floodTraceId: (batch: number) => string;
export interface FloodResult {
    answers: Record<string, number>;
    acked: number[];
}
/**
 * Runs the flood in a child process; resolves with what it was answered. `nice` (1 to 19) runs
 * it at that lower CPU priority, as an attacker on another machine would be: on a small machine
 * the flood's own sending otherwise takes a core from the receiver it floods. `expect`: every
 * request asks `Expect: 100-continue` and sends its body only once told to.
 */
export declare function runFlood(url: string, seconds: number, senders: number, token?: string | null, { nice, expect }?: {
    nice?: number | undefined;
    expect?: boolean | undefined;
}): Promise<FloodResult>;
