/**
 * Starts a real Quarry server process for benchmarks and samples its memory.
 * The server runs `src/main.ts serve` on Node 24 (this process's binary) with its own data dir.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.join(import.meta.dirname, '..', '..');
export const MAIN = path.join(ROOT, 'src', 'main.ts');

export interface BenchServer {
  readonly url: string;
  /**
   * The event-loop delay of the server since the previous call (ms); only when started with
   * `measureLoop` (bench/support/loop-delay.ts), else undefined.
   */
  loopDelay(): Promise<{ p50: number; p99: number; max: number } | undefined>;
  readonly pid: number;
  readonly process: ChildProcess;
  /** Current resident set size of the server, bytes. */
  rss(): number;
  /** Peak resident set size of the server so far (VmHWM), bytes. */
  peakRss(): number;
  /**
   * The resident set split: anonymous memory (heaps, SQLite page caches: `RssAnon`) and mapped
   * file pages (`RssFile`: code, and the store's pages under `QUARRY_SQLITE_MMAP_MIB`, shared
   * with the page cache, clean, given back under memory pressure without a write), bytes.
   */
  rssSplit(): { readonly anon: number; readonly file: number };
  /** CPU time the server process has used so far (all its threads, user + system), seconds. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile'): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Clock ticks per second of /proc times (`getconf CLK_TCK`, 100 on Linux). */
const CLOCK_TICKS = 100;

/** User + system CPU time of process `pid` (all threads), seconds; 0 when unreadable. */
function procCpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Runs a `quarry` CLI command synchronously against `dataDir`; returns stdout. */
export function quarryCli(args: string[], dataDir: string, env: Record<string, string> = {}): string {
  const run = spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, QUARRY_DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`quarry ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/**
 * Polls `url`'s `/healthz` every `pollMs` until it answers 200; throws when `child` exits first
 * or when `timeoutMs` passes (`Infinity`: no limit, for a server run under valgrind).
 */
export async function waitForHealthz(
  child: ChildProcess,
  url: string,
  { timeoutMs = 120_000, pollMs = 100 }: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not become healthy in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Starts `quarry serve` on a free port over `dataDir` and waits for `/healthz`. Node options for
 * the server alone (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it) come from
 * `QUARRY_BENCH_SERVER_NODE_ARGS` (space-separated); its output goes to `options.logFile` or
 * `QUARRY_BENCH_SERVER_LOG`. `options.main` runs another checkout's `src/main.ts` (A/B).
 */
export async function startServer(
  dataDir: string,
  options: { env?: Record<string, string>; logFile?: string; measureLoop?: boolean; main?: string } = {},
): Promise<BenchServer> {
  const port = await freePort();
  // The server's output (its log, and e.g. `--trace-gc` lines) goes to `logFile`, else to
  // `QUARRY_BENCH_SERVER_LOG` when set, else nowhere.
  const logFile = options.logFile ?? process.env.QUARRY_BENCH_SERVER_LOG;
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const nodeArgs = (process.env.QUARRY_BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const loopFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-loop-')), 'loop.json');
  if (options.measureLoop) nodeArgs.push('--import', path.join(ROOT, 'bench', 'support', 'loop-delay.ts'));
  const child = spawn(
    process.execPath,
    // --expose-gc as `npm start` passes it: the server's threads trim their heaps (src/threads/heap-trim.ts).
    ['--expose-gc', ...nodeArgs, options.main ?? MAIN, 'serve', '--port', String(port), '--data', dataDir],
    {
      env: { ...process.env, LOG_LEVEL: 'info', QUARRY_BENCH_LOOP_FILE: loopFile, ...options.env },
      stdio: ['ignore', out, out],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHealthz(child, url);
  const pid = child.pid!;
  return {
    url,
    pid,
    process: child,
    rss: () => procStatusBytes(pid, 'VmRSS'),
    peakRss: () => procStatusBytes(pid, 'VmHWM'),
    rssSplit: () => ({ anon: procStatusBytes(pid, 'RssAnon'), file: procStatusBytes(pid, 'RssFile') }),
    cpuSeconds: () => procCpuSeconds(pid),
    async loopDelay() {
      if (!options.measureLoop) return undefined;
      fs.rmSync(loopFile, { force: true });
      child.kill('SIGUSR2');
      for (let i = 0; i < 100 && !fs.existsSync(loopFile); i++) await new Promise((r) => setTimeout(r, 20));
      return JSON.parse(fs.readFileSync(loopFile, 'utf8'));
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) {
        // Until it has gone: a server started next on the same store finds the lock free.
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** Formats bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Starts `quarry worker` over `dataDir` (with `env`: the database a deployment shares) and waits
 * until it works on jobs. Resolves with its pid and a way to stop it.
 */
export async function startWorker(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ readonly pid: number; cpuSeconds(): number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--expose-gc', MAIN, 'worker', '--data', dataDir], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('worker did not start in 120 s')), 120_000);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-10_000);
      if (seen.includes('"msg":"quarry worker running"')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.removeAllListeners('exit');
  const pid = child.pid!;
  return {
    pid,
    cpuSeconds: () => procCpuSeconds(pid),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) {
        // Until it has gone: a server started next on the same store finds the lock free.
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/**
 * Samples `server`'s RSS split every `everyMs` until `peaks()` is read: the highest anonymous
 * and file-backed figures seen (each its own peak, not necessarily at the same moment).
 */
export function sampleRssSplit(server: BenchServer, everyMs = 250): { peaks(): string } {
  let anon = 0;
  let file = 0;
  const sample = () => {
    const split = server.rssSplit();
    anon = Math.max(anon, split.anon);
    file = Math.max(file, split.file);
  };
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    peaks() {
      sample();
      clearInterval(timer);
      return `RssAnon peak ${mib(anon)}, RssFile peak ${mib(file)}`;
    },
  };
}
