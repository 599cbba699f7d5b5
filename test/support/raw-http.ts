import net from 'node:net';

/** One HTTP/1.1 response read off a raw socket. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * A raw keep-alive connection to a server: requests are written byte for byte (no client library
 * that might close, retry or fix anything up) and responses parsed as they arrive. `next()`
 * rejects when no whole response arrives within `timeoutMs` (a hang) or the server closes first.
 */
export class RawConnection {
  readonly socket: net.Socket;
  #buffer = Buffer.alloc(0);
  #closed = false;
  #waiters: Array<() => void> = [];
  #writeError: Error | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#wake();
    });
    // A server that closes while we still write a large body gives EPIPE/ECONNRESET here.
    socket.on('error', (error) => {
      this.#writeError = error;
    });
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes raw bytes (headers and as much of a body as the caller wants). */
  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Writes a request with a `Content-Length` body (or none). `head` is `METHOD path`. */
  request(head: string, options: { headers?: Record<string, string>; body?: Buffer | string } = {}): void {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const lines = [`${head} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: keep-alive'];
    for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`${name}: ${value}`);
    if (body) lines.push(`Content-Length: ${body.length}`);
    this.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (body) this.write(body);
  }

  /** The next whole response; rejects on a hang (`timeoutMs`) or a close before it is whole. */
  async next(timeoutMs = 5_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.#take();
      if (parsed) return parsed;
      if (this.#closed) {
        throw new Error(
          `connection closed before a whole response (${this.#writeError?.message ?? 'no error'})`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms (the connection hangs)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves true when the server closes the connection within `timeoutMs`. */
  async waitClosed(timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#closed && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.#closed;
  }

  close(): void {
    this.socket.destroy();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #take(): RawResponse | undefined {
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(head[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let bodyEnd: number;
    let body: Buffer;
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const chunks: Buffer[] = [];
      let at = end + 4;
      for (;;) {
        const lineEnd = this.#buffer.indexOf('\r\n', at);
        if (lineEnd < 0) return undefined;
        const size = Number.parseInt(this.#buffer.subarray(at, lineEnd).toString('latin1'), 16);
        if (this.#buffer.length < lineEnd + 2 + size + 2) return undefined;
        chunks.push(this.#buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      bodyEnd = at;
      body = Buffer.concat(chunks);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (this.#buffer.length < end + 4 + length) return undefined;
      bodyEnd = end + 4 + length;
      body = this.#buffer.subarray(end + 4, bodyEnd);
    }
    const response = { status, headers, body: body.toString('utf8') };
    this.#buffer = this.#buffer.subarray(bodyEnd);
    return response;
  }
}
