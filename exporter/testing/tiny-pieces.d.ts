export interface Dripped {
    /** Body bytes (message bytes for gRPC) written. */
    sent: number;
    /** The server answered before the body was whole (a status line; a HEADERS or RST_STREAM). */
    answered: boolean;
}
/**
 * POST /v1/traces with a body of `bytes` one-byte chunks (each `1\r\n \r\n` on the wire), written
 * in batches; stops at the server's first answer.
 */
export declare function dripChunked(port: number, bytes: number, token: string | null): Promise<{
    sent: number;
    answered: boolean;
}>;
/**
 * POST /v1/traces declaring `bytes` and sending them a byte per write, every byte its own TCP
 * segment (no Nagle), yielding to the event loop between writes so that the server reads few
 * at a time; stops at the server's first answer.
 */
export declare function dripWithLength(port: number, bytes: number, token: string | null): Promise<{
    sent: number;
    answered: boolean;
}>;
/**
 * One OTLP/gRPC Export call whose message (declared `declared` bytes) is sent as `frames` DATA
 * frames of one byte each (the 5-byte prefix in a frame of its own), within the server's flow
 * control windows; stops at the server's answer to the call.
 */
export declare function dripGrpc(port: number, frames: number, token: string | null, declared?: number): Promise<Dripped>;
