/**
 * A real OpenRefine (Debian's `openrefine` package, 3.6) run headless on a free loopback port
 * with a temporary workspace and a small heap, driven through its own HTTP commands. The JVM is
 * started in a process group of its own and killed with it, also when the test process exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from './temp-dir.ts';

/** Where Debian's package puts OpenRefine's launcher. */
export const OPENREFINE_HOME = '/usr/share/openrefine';
const LAUNCHER = path.join(OPENREFINE_HOME, 'refine');
/** Heap of the JVM: a 200-row project needs little; the package's default is 1400M. */
const HEAP = '256M';
const STARTUP_MS = 90_000;

/** Why OpenRefine cannot run here, with how to install it; `undefined` when it can. */
export function openRefineMissing(): string | undefined {
  if (!fs.existsSync(LAUNCHER)) {
    return `OpenRefine is not installed (no ${LAUNCHER}): apt-get update && apt-get install -y openrefine`;
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface OpenRefine {
  readonly url: string;
  /** Its output so far (for failure messages). */
  log(): string;
  /** A command of its HTTP API (`/command/core/<name>`), with a fresh CSRF token when posting. */
  command(
    name: string,
    options?: { query?: Record<string, string>; form?: FormData | URLSearchParams; method?: string },
  ): Promise<Response>;
  /** Waits until the project has no running process (reconcile and extend run in the background). */
  waitIdle(project: string, timeoutMs?: number): Promise<void>;
  /** Kills the JVM (its whole process group) and removes the workspace. Idempotent. */
  close(): Promise<void>;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Starts OpenRefine and resolves once its HTTP API answers. */
export async function startOpenRefine(): Promise<OpenRefine> {
  const missing = openRefineMissing();
  if (missing) throw new Error(missing);
  const workspace = tempDir();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    LAUNCHER,
    [
      '-p',
      String(port),
      '-i',
      '127.0.0.1',
      '-d',
      workspace.path,
      '-m',
      HEAP,
      '-x',
      'refine.headless=true',
      'run',
    ],
    {
      cwd: OPENREFINE_HOME,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Serial GC: no parallel collector threads on a shared machine (the launcher passes
      // JAVA_OPTIONS as one argument: one option only).
      env: { ...process.env, JAVA_OPTIONS: '-XX:+UseSerialGC' },
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const onExit = () => killGroup(child);
  process.once('exit', onExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    killGroup(child);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    process.removeListener('exit', onExit);
    workspace.remove();
  };

  const csrf = async () => {
    const response = await fetch(`${url}/command/core/get-csrf-token`);
    return ((await response.json()) as { token: string }).token;
  };
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`OpenRefine exited with code ${child.exitCode}:\n${output}`);
    }
    try {
      await csrf();
      break;
    } catch {
      if (Date.now() - started > STARTUP_MS) {
        await close();
        throw new Error(`OpenRefine did not answer within ${STARTUP_MS / 1000} s:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  const command: OpenRefine['command'] = async (name, options = {}) => {
    const method = options.method ?? (options.form ? 'POST' : 'GET');
    const query = new URLSearchParams(options.query ?? {});
    if (method === 'POST') query.set('csrf_token', await csrf());
    return fetch(`${url}/command/core/${name}?${query}`, {
      method,
      ...(options.form ? { body: options.form } : {}),
      redirect: 'manual',
    });
  };
  const waitIdle = async (project: string, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await command('get-processes', { query: { project } });
      const { processes } = (await response.json()) as { processes: unknown[] };
      if (processes.length === 0) return;
      if (Date.now() > deadline)
        throw new Error(`OpenRefine still busy: ${JSON.stringify(processes)}\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  return { url, log: () => output, command, waitIdle, close };
}
