// Clients that send a body a byte at a time, as an attacker does and no library will: over
// HTTP/1.1 chunked (every byte its own chunk, which the server's parser hands on as a piece of
// its own however the TCP segments fall), over HTTP/1.1 with a content-length (a byte per
// write, no Nagle), and over HTTP/2 as one-byte DATA frames written frame by frame (node:http2
// joins small writes into larger frames, so the frames are written by hand: RFC 9113 §4, with
// HPACK literals that index nothing, RFC 7541 §6.2.2, and flow control by the server's
// WINDOW_UPDATEs). Each resolves once the server answered or closed, or everything was sent.
import { connect } from 'node:net';
/** Writes `buf`, waiting for the socket to drain when it asks; false once it closed. */
async function write(socket, buf) {
    if (socket.destroyed)
        return false;
    if (socket.write(buf))
        return true;
    return new Promise((resolve) => {
        const done = (ok) => () => {
            socket.off('drain', drained);
            socket.off('close', closed);
            resolve(ok);
        };
        const drained = done(true);
        const closed = done(false);
        socket.once('drain', drained);
        socket.once('close', closed);
    });
}
/** Whether the server has said anything on this socket yet (an answer ends a drip). */
function heard(socket) {
    const state = { answered: false };
    socket.once('data', () => (state.answered = true));
    return state;
}
function open(port) {
    return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
            socket.off('error', reject);
            resolve(socket);
        });
        socket.once('error', reject);
    });
}
function head(path, token, length) {
    return [
        `POST ${path} HTTP/1.1`,
        'host: 127.0.0.1',
        'content-type: application/json',
        length === null ? 'transfer-encoding: chunked' : `content-length: ${length}`,
        ...(token ? [`authorization: Bearer ${token}`] : []),
        '',
        '',
    ].join('\r\n');
}
/**
 * POST /v1/traces with a body of `bytes` one-byte chunks (each `1\r\n \r\n` on the wire), written
 * in batches; stops at the server's first answer.
 */
export async function dripChunked(port, bytes, token) {
    const socket = await open(port);
    socket.on('error', () => undefined);
    const server = heard(socket);
    await write(socket, Buffer.from(head('/v1/traces', token, null)));
    const BATCH = 8192;
    const batch = Buffer.from('1\r\n \r\n'.repeat(BATCH));
    let sent = 0;
    while (sent < bytes && !server.answered) {
        const n = Math.min(BATCH, bytes - sent);
        if (!(await write(socket, n === BATCH ? batch : batch.subarray(0, n * 6))))
            break;
        sent += n;
    }
    if (!server.answered && !socket.destroyed)
        await write(socket, Buffer.from('0\r\n\r\n'));
    socket.destroy();
    return { sent, answered: server.answered };
}
/**
 * POST /v1/traces declaring `bytes` and sending them a byte per write, every byte its own TCP
 * segment (no Nagle), yielding to the event loop between writes so that the server reads few
 * at a time; stops at the server's first answer.
 */
export async function dripWithLength(port, bytes, token) {
    const socket = await open(port);
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    const server = heard(socket);
    await write(socket, Buffer.from(head('/v1/traces', token, bytes)));
    const one = Buffer.from(' ');
    let sent = 0;
    while (sent < bytes && !server.answered) {
        if (!(await write(socket, one)))
            break;
        sent++;
        await new Promise((resolve) => setImmediate(resolve));
    }
    socket.destroy();
    return { sent, answered: server.answered };
}
/** An HTTP/2 frame: length, type, flags, stream (RFC 9113 §4.1). */
function frame(type, flags, stream, payload) {
    const h = Buffer.alloc(9);
    h.writeUIntBE(payload.length, 0, 3);
    h[3] = type;
    h[4] = flags;
    h.writeUInt32BE(stream, 5);
    return Buffer.concat([h, payload]);
}
/** An HPACK integer with an N-bit prefix (RFC 7541 §5.1). */
function hpackInt(value, bits) {
    const max = (1 << bits) - 1;
    if (value < max)
        return [value];
    const out = [max];
    for (value -= max; value >= 128; value = Math.floor(value / 128))
        out.push((value % 128) + 128);
    out.push(value);
    return out;
}
/** Headers as literals without indexing, new names, no Huffman (RFC 7541 §6.2.2). */
function hpack(headers) {
    const literal = (s) => [...hpackInt(Buffer.byteLength(s), 7), ...Buffer.from(s)];
    return Buffer.from(headers.flatMap(([name, value]) => [0, ...literal(name), ...literal(value)]));
}
const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
/**
 * One OTLP/gRPC Export call whose message (declared `declared` bytes) is sent as `frames` DATA
 * frames of one byte each (the 5-byte prefix in a frame of its own), within the server's flow
 * control windows; stops at the server's answer to the call.
 */
export async function dripGrpc(port, frames, token, declared = frames) {
    const socket = await open(port);
    socket.on('error', () => undefined);
    const server = { answered: false };
    let connWindow = 65_535;
    let streamWindow = 65_535;
    let opened = () => undefined;
    let pending = Buffer.alloc(0);
    // The server's frames: its settings (acknowledged), window updates, and the call's end.
    socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 9) {
            const length = pending.readUIntBE(0, 3);
            if (pending.length < 9 + length)
                break;
            const [type, flags] = [pending[3], pending[4]];
            const stream = pending.readUInt32BE(5) & 0x7fffffff;
            const payload = pending.subarray(9, 9 + length);
            pending = pending.subarray(9 + length);
            if (type === SETTINGS && !(flags & 1)) {
                for (let i = 0; i + 6 <= payload.length; i += 6)
                    if (payload.readUInt16BE(i) === 0x4)
                        streamWindow = payload.readUInt32BE(i + 2);
                socket.write(frame(SETTINGS, 1, 0, Buffer.alloc(0)));
            }
            else if (type === WINDOW_UPDATE) {
                const inc = payload.readUInt32BE(0) & 0x7fffffff;
                if (stream === 0)
                    connWindow += inc;
                else
                    streamWindow += inc;
            }
            else if ((type === HEADERS && stream === 1 && flags & END_STREAM) || type === GOAWAY)
                server.answered = true;
            else if (type === RST_STREAM && stream === 1)
                server.answered = true;
            opened();
        }
    });
    socket.once('close', () => {
        server.answered = true;
        opened();
    });
    const headers = hpack([
        [':method', 'POST'],
        [':scheme', 'http'],
        [':path', '/opentelemetry.proto.collector.trace.v1.TraceService/Export'],
        [':authority', `127.0.0.1:${port}`],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
        ...(token ? [['authorization', `Bearer ${token}`]] : []),
    ]);
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(declared, 1);
    await write(socket, Buffer.concat([
        Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
        frame(SETTINGS, 0, 0, Buffer.alloc(0)),
        frame(HEADERS, END_HEADERS, 1, headers),
        frame(DATA, 0, 1, prefix),
    ]));
    connWindow -= 5;
    streamWindow -= 5;
    const one = frame(DATA, 0, 1, Buffer.from([1]));
    let sent = 0;
    while (sent < frames && !server.answered) {
        const room = Math.min(connWindow, streamWindow, frames - sent, 4096);
        if (room <= 0) {
            // Wait for a window update (or the answer).
            await new Promise((resolve) => (opened = resolve));
            continue;
        }
        if (!(await write(socket, Buffer.concat(Array.from({ length: room }, () => one)))))
            break;
        sent += room;
        connWindow -= room;
        streamWindow -= room;
    }
    socket.destroy();
    return { sent, answered: server.answered };
}
//# sourceMappingURL=tiny-pieces.js.map