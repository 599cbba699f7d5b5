/**
 * Synchronous PostgreSQL queries for threads whose code is synchronous (the matcher's reads in
 * worker threads, imports from the command line). `pg` only speaks asynchronously, so a helper
 * thread owns the connection; the calling thread posts each query and blocks on
 * `Atomics.wait` until the answer is on its port, then takes it with `receiveMessageOnPort`.
 *
 * Blocking is what makes it synchronous, so it must not run on a thread that serves requests:
 * measured in `bench/port-shape.ts`, 200 concurrent charges through it held the event loop for
 * 0.7-2.6 s at p99 (docs/architecture.md#storage-ports).
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

/** One query's answer as it crosses threads. */
export interface BridgeResult {
  readonly rows: Record<string, unknown>[];
  readonly rowCount: number;
}

type Reply = { ok: true; result: BridgeResult } | { ok: false; error: string; code?: string };

/** A PostgreSQL error re-raised in the calling thread, with its SQLSTATE `code`. */
export class PostgresBridgeError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.code = code;
  }
}

/** How long a call waits for its answer before giving up (a connection that hangs). */
const CALL_TIMEOUT_MS = 600_000;

/** A connection used synchronously: `query` blocks the calling thread until PostgreSQL answers. */
export class SyncPostgres {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #flag = new Int32Array(new SharedArrayBuffer(4));
  #closed = false;
  /** Open `begin`s: the transaction commits when the outermost one does. */
  #depth = 0;
  /** A nested part rolled back: the outermost commit rolls back instead. */
  #doomed = false;
  /** A statement of the open transaction was not a `SELECT` (see `readTransaction`). */
  #wrote = false;

  /** Connects to `url` (blocking until connected). */
  constructor(url: string) {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(new URL('./sync-bridge-thread.ts', import.meta.url), {
      name: 'pg-bridge',
      workerData: { url, flag: this.#flag, port: port2 },
      transferList: [port2],
    });
    // The helper must not keep a process alive that is otherwise done.
    this.#worker.unref();
    this.#call({ connect: true });
  }

  /** Whether a transaction of `begin` is open on this connection. */
  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  /** Runs one statement (or several, without parameters) and returns its rows. */
  query(sql: string, params: readonly unknown[] = []): BridgeResult {
    if (this.#depth > 0 && !this.#wrote && !/^\s*select\b/i.test(sql)) this.#wrote = true;
    return this.#call({ sql, params });
  }

  /** Opens a transaction, or joins the open one (`commit`/`rollback` then only count down). */
  begin(sql = 'BEGIN'): void {
    if (this.#depth === 0) this.query(sql);
    this.#depth++;
  }

  commit(): void {
    if (this.#depth === 0) throw new Error('no transaction is open');
    this.#depth--;
    if (this.#depth === 0) this.query('COMMIT');
  }

  /** Rolls the whole transaction back (a nested failure fails the outer transaction too). */
  rollback(): void {
    if (this.#depth === 0) return;
    this.#depth--;
    if (this.#depth === 0) this.query('ROLLBACK');
    else this.#doomed = true;
  }

  /**
   * Runs `fn` in a read-only transaction opened by `begin` (statements without parameters, the
   * last one's rows handed to `fn`): a read snapshot in one round trip with what it reads first.
   * When `fn` only read (every statement a `SELECT`), its `COMMIT` is sent without waiting for
   * the answer: a read-only commit has nothing to report, and the next statement on the
   * connection runs after it. One that wrote commits as `transaction` does. Not nested.
   */
  readTransaction<T>(begin: string, fn: (rows: Record<string, unknown>[]) => T): T {
    if (this.#depth > 0) throw new Error('readTransaction does not nest');
    const { rows } = this.query(begin);
    this.#depth = 1;
    this.#wrote = false;
    let value: T;
    try {
      value = fn(rows as Record<string, unknown>[]);
    } catch (error) {
      this.rollback();
      throw error;
    }
    if (this.#doomed) {
      this.#doomed = false;
      this.rollback();
      throw new Error('a nested part of the transaction failed: rolled back');
    }
    if (this.#wrote) {
      this.commit();
      return value;
    }
    this.#depth = 0;
    this.#send('COMMIT');
    return value;
  }

  /** Runs `fn` in a transaction on this connection (joining an open one); rolls back on throw. */
  transaction<T>(fn: () => T, sql = 'BEGIN'): T {
    this.begin(sql);
    let value: T;
    try {
      value = fn();
    } catch (error) {
      this.rollback();
      throw error;
    }
    if (this.#depth === 1 && this.#doomed) {
      this.#doomed = false;
      this.rollback();
      throw new Error('a nested part of the transaction failed: rolled back');
    }
    this.commit();
    return value;
  }

  /** Posts a statement whose answer nobody waits for; a failure is reported by the next call. */
  #send(sql: string): void {
    if (this.#closed) throw new Error('the PostgreSQL connection is closed');
    this.#port.postMessage({ sql, params: [], noReply: true });
  }

  #call(message: Record<string, unknown>): BridgeResult {
    if (this.#closed) throw new Error('the PostgreSQL connection is closed');
    Atomics.store(this.#flag, 0, 0);
    this.#port.postMessage(message);
    const reply = this.#awaitReply();
    if (!reply.ok) throw new PostgresBridgeError(reply.error, reply.code);
    return reply.result;
  }

  /**
   * The helper's answer to the call just posted. A wake-up is not an answer: the helper stores
   * the flag, then notifies, and a notify that comes late for the previous call (the helper
   * descheduled between the two) wakes this one before its answer is posted. Taking a message
   * only once it is there keeps each answer with its own call.
   */
  #awaitReply(): Reply {
    const deadline = performance.now() + CALL_TIMEOUT_MS;
    for (;;) {
      const received = receiveMessageOnPort(this.#port);
      if (received) return received.message as Reply;
      const left = deadline - performance.now();
      if (left <= 0 || Atomics.wait(this.#flag, 0, 0, left) === 'timed-out') {
        throw new Error(`PostgreSQL did not answer within ${CALL_TIMEOUT_MS / 1000} s`);
      }
    }
  }

  /** Ends the connection and its thread. Idempotent. */
  close(): void {
    if (this.#closed) return;
    try {
      this.#call({ end: true });
    } catch {
      // Closing anyway.
    }
    this.#closed = true;
    this.#port.close();
    void this.#worker.terminate();
  }
}
