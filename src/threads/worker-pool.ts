import path from 'node:path';
import { parentPort, type ResourceLimits, type Transferable, Worker } from 'node:worker_threads';
import { type ErrorOutcome, outcomeOf } from '../errors.ts';

/** A task failed because its worker thread died (crash, out of memory, terminate). */
export class WorkerCrashedError extends Error {}

/**
 * A task's own error, re-raised on the main thread with the worker's message and, when it was a
 * registered error (`errors.ts`), its `code` and `outcome` (a class does not cross threads).
 */
export class WorkerTaskError extends Error {
  readonly code: string | undefined;
  readonly outcome: ErrorOutcome | undefined;
  constructor(message: string, registered: { code?: string; outcome?: ErrorOutcome } = {}) {
    super(message);
    this.name = 'WorkerTaskError';
    this.code = registered.code;
    this.outcome = registered.outcome;
  }
}

export interface WorkerPoolOptions {
  /** Number of threads. */
  readonly size: number;
  /** The worker module; it answers `[id, task]` messages with `{id, ok, result | error}` (or an array). */
  readonly script: URL;
  readonly workerData?: unknown;
  /** Called at each thread's start, its result merged over `workerData` (state that changes). */
  readonly workerDataAtStart?: () => Record<string, unknown>;
  /**
   * Tasks handed to one thread at a time. Two keep a thread busy while the main thread
   * handles the previous answer.
   */
  readonly tasksPerWorker?: number;
  /** Called when a thread dies unexpectedly; the pool starts a replacement. */
  readonly onCrash?: (error: Error) => void;
  /**
   * A thread with no task for this long is ended and started again when work comes (0 or
   * unset: threads live as long as the pool). A matching thread holds hundreds of MiB (caches,
   * its store connection); a pool that keeps them after a burst of work keeps that memory.
   */
  readonly idleTimeoutMs?: number;
  /** V8 heap limits of each thread (`Worker`'s `resourceLimits`). */
  readonly resourceLimits?: ResourceLimits;
}

interface Pending<R> {
  resolve(value: R): void;
  reject(error: Error): void;
}

interface Slot<R> {
  /** Undefined while the slot's thread is retired (idle past `idleTimeoutMs`). */
  worker: Worker | undefined;
  pending: Map<number, Pending<R>>;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Message protocol between the pool and its worker threads. A task goes as the pair `[id, task]`:
 * no property names for the structured clone to write and read back.
 */
export type WorkerRequest<T> = readonly [id: number, task: T];
export type WorkerReply<R> =
  | { id: number; ok: true; result: R }
  | { id: number; ok: false; error: string; code?: string; outcome?: ErrorOutcome };
/**
 * A reply within a batch's message (`serveTaskBatches`): an answer as the pair `[id, result]`,
 * an error as its `WorkerReply`. A pair has no property names for the structured clone to write
 * and read back (an object's keys are strings in the message, internalised again on arrival).
 */
export type BatchReply<R> = readonly [id: number, result: R] | WorkerReply<R>;

/**
 * What of a result a reply hands over to the pool's thread instead of copying it: e.g. the
 * `ArrayBuffer` of a byte array the worker will not touch again (it is detached here once
 * posted). Results are cloned as before when unset.
 */
export type TransferOf<R> = (result: R) => readonly Transferable[];

/**
 * The worker side of the protocol: answers each `[id, task]` the pool posts with `answer(task)`
 * (or the error it throws), then calls `afterReply` while the reply is on its way. `transfer`
 * names what of each result is handed over rather than copied.
 */
export function serveTasks<T, R>(
  answer: (task: T) => R,
  afterReply?: () => void,
  transfer?: TransferOf<R>,
): void {
  if (!parentPort) throw new Error('serveTasks runs in a worker thread');
  const port = parentPort;
  port.on('message', (message: WorkerRequest<T>) => {
    const reply = replyOf(message, answer);
    port.postMessage(reply, reply.ok && transfer ? transfer(reply.result) : undefined);
    afterReply?.();
  });
}

/**
 * The worker side for a thread that answers several tasks at once more cheaply than one by one
 * (reads made together): the tasks that have arrived by the time the thread is free go to
 * `answerBatch` together. Nothing waits for a batch to fill: a lone task goes at once, and tasks
 * that arrive while a batch is answered make the next one. `answerBatch` prepares what it
 * likes, then calls `answerEach(answer)`, which answers the tasks in order (`answer(task, index)`,
 * the index in `tasks`; a task's error is its own reply). A throw of `answerBatch` is the reply of
 * every task it did not answer.
 *
 * The replies of a batch go back together, in one message, once all are made: the pool's thread
 * is woken once and takes them in one turn, so what it does after each (an enhance answer's
 * credit charge) is grouped too (one commit instead of one per reply). A batch's replies were
 * all made after its shared reads anyway, which take most of its time. `transfer` names what of
 * each result is handed over rather than copied.
 */
export function serveTaskBatches<T, R>(
  answerBatch: (tasks: readonly T[], answerEach: (answer: (task: T, index: number) => R) => void) => void,
  transfer?: TransferOf<R>,
): void {
  if (!parentPort) throw new Error('serveTaskBatches runs in a worker thread');
  const port = parentPort;
  let queued: WorkerRequest<T>[] = [];
  const run = () => {
    const batch = queued;
    queued = [];
    const replies: BatchReply<R>[] = [];
    const failAll = (error: unknown) => {
      for (let i = replies.length; i < batch.length; i++) replies.push(errorReplyOf(batch[i][0], error));
    };
    try {
      answerBatch(
        batch.map((message) => message[1]),
        (answer) => {
          for (let i = replies.length; i < batch.length; i++) replies.push(batchReplyOf(batch[i], answer, i));
        },
      );
    } catch (error) {
      failAll(error);
    }
    // answerBatch returned without answering some: they must not wait for ever.
    failAll(new Error('the batch ended without answering this task'));
    port.postMessage(
      replies,
      transfer ? replies.flatMap((reply) => (isPair(reply) ? transfer(reply[1]) : [])) : undefined,
    );
  };
  port.on('message', (message: WorkerRequest<T>) => {
    // Messages already on the port are all delivered before the immediate runs: one batch.
    if (queued.push(message) === 1) setImmediate(run);
  });
}

/** A batch's reply to `message` (the `index`th task of its batch): `[id, result]` or the error. */
function batchReplyOf<T, R>(
  message: WorkerRequest<T>,
  answer: (task: T, index: number) => R,
  index: number,
): BatchReply<R> {
  try {
    return [message[0], answer(message[1], index)];
  } catch (error) {
    return errorReplyOf(message[0], error);
  }
}

/** The reply to `message`: `answer(task)`, or the error it throws (with its registered outcome). */
function replyOf<T, R>(message: WorkerRequest<T>, answer: (task: T) => R): WorkerReply<R> {
  try {
    return { id: message[0], ok: true, result: answer(message[1]) };
  } catch (error) {
    return errorReplyOf(message[0], error);
  }
}

/** The reply of task `id` that failed with `error` (with its registered outcome and code). */
function errorReplyOf(id: number, error: unknown): WorkerReply<never> {
  const outcome = outcomeOf(error);
  const code = outcome ? (error as { code?: unknown }).code : undefined;
  return {
    id,
    ok: false,
    error: (error as Error).stack ?? String(error),
    ...(outcome ? { outcome } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

function isPair<R>(reply: BatchReply<R>): reply is readonly [number, R] {
  return Array.isArray(reply);
}

/**
 * A fixed-size pool of worker threads running one module. Tasks go to the least loaded thread;
 * a thread that dies fails its tasks with `WorkerCrashedError` and is replaced.
 *
 * Why our own and not piscina or tinypool (measured with `bench/worker-pool.ts`, which runs the
 * same task module under each; 2026-11-27, AMD EPYC Zen 4, 2 threads, 16 tasks in flight,
 * single enhance requests over a 200k-entity demo graph, load 10–17): throughput is the same
 * within the host's noise (920–1,260 requests/s for every pool), but the main thread — which
 * also parses HTTP, authenticates, charges and commits bulk results — spends 31–38 µs per
 * request with this pool against 54–67 µs with piscina 5.3 (with or without atomics or timing)
 * and 42–46 µs with tinypool 2.2; on an empty task, 6–8 µs against 11–18 and 9–12. It also does
 * what neither offers and Quarry needs: data computed at each thread's start
 * (`workerDataAtStart`: the matcher vocabularies built so far, for a thread started or replaced
 * later), a hook that runs after a reply is posted (`serveTasks`' `afterReply`: heap trimming
 * between bulk batches), and idle threads that never keep a CLI command or a test alive.
 */
export class WorkerPool<T, R, W = R> {
  readonly #options: WorkerPoolOptions;
  readonly #decode: ((sent: W) => R) | undefined;
  readonly #slots: Slot<R>[] = [];
  readonly #queue: { task: T; pending: Pending<R> }[] = [];
  #nextId = 1;
  #closed = false;

  /**
   * `decode` turns what a thread sends (`W`) into the result a task resolves with (`R`), as the
   * reply is taken (no promise of its own per task); it must not throw. Default: as sent.
   */
  constructor(options: WorkerPoolOptions, decode?: (sent: W) => R) {
    if (!Number.isInteger(options.size) || options.size < 1) {
      throw new RangeError(`worker pool size must be a positive integer, got ${options.size}`);
    }
    this.#options = options;
    this.#decode = decode;
    for (let i = 0; i < options.size; i++) this.#slots.push(this.#spawn());
  }

  /** Tasks the pool runs at once without queueing. */
  get capacity(): number {
    return this.#options.size * (this.#options.tasksPerWorker ?? 2);
  }

  /** Tasks handed to threads and not answered yet, plus queued ones. */
  get inFlight(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.pending.size, 0) + this.#queue.length;
  }

  /** Runs `task` on a thread; rejects with `WorkerTaskError` or `WorkerCrashedError`. */
  run(task: T): Promise<R> {
    if (this.#closed) return Promise.reject(new WorkerCrashedError('the worker pool is closed'));
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ task, pending: { resolve, reject } });
      this.#dispatch();
    });
  }

  /** Terminates every thread; tasks still running fail with `WorkerCrashedError`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const { pending } of this.#queue.splice(0)) {
      pending.reject(new WorkerCrashedError('the worker pool is closed'));
    }
    await Promise.all(
      this.#slots.map(async (slot) => {
        for (const pending of slot.pending.values()) {
          pending.reject(new WorkerCrashedError('the worker pool is closed'));
        }
        slot.pending.clear();
        clearTimeout(slot.idleTimer);
        await slot.worker?.terminate();
      }),
    );
  }

  #dispatch(): void {
    const perWorker = this.#options.tasksPerWorker ?? 2;
    while (this.#queue.length > 0) {
      let best: Slot<R> | undefined;
      for (const slot of this.#slots) {
        if (slot.pending.size < perWorker && (!best || slot.pending.size < best.pending.size)) best = slot;
      }
      if (!best) return;
      const { task, pending } = this.#queue.shift()!;
      const id = this.#nextId++;
      best.pending.set(id, pending);
      clearTimeout(best.idleTimer);
      best.worker ??= this.#start(best);
      // Busy threads keep the process alive; idle ones do not (see #start).
      best.worker.ref();
      best.worker.postMessage([id, task] satisfies WorkerRequest<T>);
    }
  }

  #spawn(): Slot<R> {
    const slot: Slot<R> = { worker: undefined, pending: new Map() };
    slot.worker = this.#start(slot);
    this.#retireWhenIdle(slot, slot.worker);
    return slot;
  }

  #resultOf(sent: W): R {
    return this.#decode ? this.#decode(sent) : (sent as unknown as R);
  }

  /** Starts the thread of `slot`. */
  #start(slot: Slot<R>): Worker {
    const { workerData, workerDataAtStart } = this.#options;
    const worker = new Worker(this.#options.script, {
      // The script's name is the thread's in `top -H` and /proc (what a profile attributes to).
      name: path.basename(this.#options.script.pathname, '.ts'),
      workerData: workerDataAtStart ? { ...(workerData as object), ...workerDataAtStart() } : workerData,
      ...(this.#options.resourceLimits ? { resourceLimits: this.#options.resourceLimits } : {}),
    });
    worker.on('message', (message: WorkerReply<W> | BatchReply<W>[]) => {
      // A batch's replies come as one array (`serveTaskBatches`), a lone task's as itself.
      const replies = Array.isArray(message) ? message : [message];
      let settled = false;
      for (const reply of replies) {
        const id = isPair(reply) ? reply[0] : reply.id;
        const pending = slot.pending.get(id);
        if (!pending) continue;
        settled = true;
        slot.pending.delete(id);
        if (isPair(reply)) pending.resolve(this.#resultOf(reply[1]));
        else if (reply.ok) pending.resolve(this.#resultOf(reply.result));
        else pending.reject(new WorkerTaskError(reply.error, reply));
      }
      if (!settled) return;
      this.#dispatch();
      if (slot.pending.size === 0) {
        worker.unref();
        this.#retireWhenIdle(slot, worker);
      }
    });
    const died = (error: Error) => {
      // A retired thread's exit, or a thread already replaced: nothing to do.
      if (slot.worker !== worker || !this.#slots.includes(slot)) return;
      for (const pending of slot.pending.values()) pending.reject(new WorkerCrashedError(error.message));
      slot.pending.clear();
      if (this.#closed) return;
      this.#options.onCrash?.(error);
      slot.worker = this.#start(slot);
      this.#dispatch();
    };
    worker.on('error', (error) => died(error));
    worker.on('exit', (code) => {
      if (!this.#closed) died(new Error(`worker thread exited with code ${code}`));
    });
    // An idle pool must not keep a process (a CLI command, a test) from exiting.
    worker.unref();
    return worker;
  }

  /** Ends `worker` once it has had no task for `idleTimeoutMs`; the next task starts another. */
  #retireWhenIdle(slot: Slot<R>, worker: Worker): void {
    const idleMs = this.#options.idleTimeoutMs ?? 0;
    if (idleMs <= 0) return;
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.worker !== worker || slot.pending.size > 0 || this.#closed) return;
      slot.worker = undefined;
      void worker.terminate();
    }, idleMs);
    slot.idleTimer.unref();
  }

  /** Threads running now (retired ones excluded). */
  get liveThreads(): number {
    return this.#slots.filter((slot) => slot.worker !== undefined).length;
  }
}
