import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Largest unread remainder of a request body that is read and discarded after an early answer
 * to keep the connection usable. A larger (or longer than announced) remainder closes the
 * connection instead: reading megabytes nobody wants costs more than a new connection.
 */
export const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Settles a request whose body was not read to its end when its answer is sent (an early 400,
 * 401 or 413, or a streamed body rejected part way). A half-read body left on a kept-alive
 * connection stalls it: the next request on it sits behind the unread bytes and is never
 * answered. So the rest of the body is either drained and discarded (up to
 * `DRAIN_LIMIT_BYTES`), keeping the connection, or the answer says `Connection: close` and the
 * connection closes once it is sent.
 */
export function settleUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete) return;
  const declared = Number(request.headers['content-length']);
  // A reader that stopped part way and destroyed the request stream leaves bytes that can no
  // longer be drained; a remainder over the limit is not worth reading: the connection goes.
  if (raw.destroyed || (Number.isFinite(declared) && declared > DRAIN_LIMIT_BYTES)) {
    reply.header('connection', 'close');
    return;
  }
  // Fastify closes the connection after a body over the route's limit; draining it instead
  // keeps the connection and spares the client a reset while it is still sending.
  reply.removeHeader('connection');
  // Whoever was reading the body gave up: take it over and discard the rest.
  raw.removeAllListeners('readable');
  raw.removeAllListeners('data');
  let drained = 0;
  raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) raw.socket?.destroy();
  });
  raw.resume();
}

/** Installs `settleUnreadBody` on every route of `app` (call before registering routes). */
export function installUnreadBodyGuard(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise per request for what is synchronous.
  app.addHook('onSend', (request, reply, payload, done) => {
    settleUnreadBody(request, reply);
    done(null, payload);
  });
}
