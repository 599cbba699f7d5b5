import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const MESSAGES: Readonly<Record<number, string>> = {
  400: 'Malformed HTTP request',
  408: 'The request was not received in time',
  413: 'Request body is too large',
  431: 'The request line and headers are larger than 16 KiB: send long parameters in a POST body',
};

function statusOf(error: ConnectionError): number {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 413;
    default:
      return 400;
  }
}

/**
 * The raw answer (status line, headers, our error body, `Connection: close`) to a request
 * refused before routing, in the dialect of its path when the request line shows it.
 */
export function clientErrorAnswer(status: number, requestStart: string): string {
  const message = MESSAGES[status] ?? STATUS_CODES[status] ?? 'Bad request';
  const area = /^[A-Z]+ \/v3\//.test(requestStart) ? 'BC' : 'A';
  const body = JSON.stringify(
    area === 'BC' ? { errorCode: status, error: message } : { code: status, message, error: true },
  );
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Fastify's `clientErrorHandler`: a request Node refuses before Fastify sees it (headers over
 * 16 KiB → 431, headers or body not received in time → 408, malformed → 400) is answered in
 * our error body shape rather than Fastify's, and the connection closed.
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable) {
    socket.destroy();
    return;
  }
  // Node gives the bytes it had read (a Buffer) when it has them.
  const packet: unknown = error.rawPacket;
  const start = Buffer.isBuffer(packet) ? packet.toString('latin1', 0, 16) : '';
  socket.end(clientErrorAnswer(statusOf(error), start));
}

/**
 * A body that stops arriving: when no byte of a request's body comes for `idleMs`, it is
 * answered 408 and the connection closed, instead of being held open for as long as the
 * client likes. Node's own timeouts bound the headers (`headersTimeout`) and the whole request
 * (`requestTimeout`); this bounds the silence within a body, which a slow client can stretch
 * to the whole request timeout.
 */
export function installBodyIdleTimeout(app: FastifyInstance, idleMs: number): void {
  if (idleMs <= 0) return;
  // Callback hooks, not async ones: no promise per request for what is synchronous.
  app.addHook('onRequest', (request, reply, done) => {
    watchBodyIdle(request, reply, idleMs);
    done();
  });
  // The body has been read once the handler runs (a route that ignores it has none to read).
  // Only a socket with a timeout armed is cleared: Node has cleared its keep-alive timeout when
  // the request arrived, so a request without a body (the watch left it unarmed) has nothing to
  // clear, and `setTimeout(0)` (timer look-up, validation) is not paid on every request.
  app.addHook('preHandler', (request, _reply, done) => {
    const socket = request.raw.socket as { timeout?: number; setTimeout?: (ms: number) => void } | null;
    if (request.raw.complete && socket?.timeout) socket.setTimeout?.(0);
    done();
  });
}

/** `installBodyIdleTimeout`'s watch of one request's body. */
function watchBodyIdle(request: FastifyRequest, reply: FastifyReply, idleMs: number): void {
  const raw = request.raw;
  // Without a body there is nothing to wait for. `complete` may still be false here (Node
  // marks a bodiless request complete just after routing it), and a socket timeout left
  // armed on a request nobody reads to its end destroys the connection: a GET answered
  // after `idleMs` (a download with wait=60, a slow page to extract) was cut unanswered.
  const length = raw.headers['content-length'];
  const hasBody = raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (raw.complete || !hasBody) return;
  const socket = raw.socket;
  // Requests injected in tests have no real socket.
  if (typeof socket?.setTimeout !== 'function') return;
  const onIdle = () => {
    if (raw.complete) return;
    request.log.info({ idleMs }, 'request body stalled: answered 408');
    if (!reply.raw.headersSent) socket.write(clientErrorAnswer(408, `${request.method} ${request.url}`));
    socket.destroySoon();
  };
  // While the body is incomplete the request stream gets the socket's 'timeout' (and so
  // Node does not destroy the socket before the 408 is written).
  socket.setTimeout(idleMs);
  raw.on('timeout', onIdle);
  raw.once('end', () => socket.setTimeout(0));
  reply.raw.once('finish', () => raw.removeListener('timeout', onIdle));
}
