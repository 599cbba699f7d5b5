/**
 * Real `quarry serve` and `quarry worker` processes for tests that run several of them on one
 * store (test/multi-process.test.ts): each started with its own data directory, resolving once
 * it is ready (a server logs its address; a worker logs that it runs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const MAIN = path.join(import.meta.dirname, '..', '..', 'src', 'main.ts');

export interface QuarryProcess {
  readonly command: 'serve' | 'worker';
  readonly child: ChildProcess;
  readonly pid: number;
  /** The server's base URL (`serve` only). */
  readonly url: string | undefined;
  /** The last lines it wrote (stdout and stderr), for failure messages. */
  tail(): string;
  /** Sends `signal` and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const READY: Record<QuarryProcess['command'], RegExp> = {
  serve: /"address":"(http:\/\/[^"]+)"/,
  worker: /"msg":"quarry worker running"/,
};

/** Starts `node src/main.ts <command> --data DIR` (a server on a free loopback port). */
export function startQuarryProcess(
  command: QuarryProcess['command'],
  dataDir: string,
  env: Record<string, string>,
): Promise<QuarryProcess> {
  const args = [
    '--expose-gc',
    MAIN,
    command,
    '--data',
    dataDir,
    ...(command === 'serve' ? ['--port', '0'] : []),
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', QUARRY_ALLOW_PRIVATE_NETWORK: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let recent = '';
  const keep = (chunk: Buffer) => {
    recent = (recent + chunk.toString()).slice(-20_000);
  };
  child.stderr!.on('data', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`quarry ${command} did not start in time: ${recent.slice(-2000)}`));
    }, 60_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`quarry ${command} exited with code ${code}: ${recent.slice(-2000)}`));
    };
    child.once('exit', onExit);
    let started = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      const match = started ? null : READY[command].exec(recent);
      if (!match) return;
      started = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({
        command,
        child,
        pid: child.pid!,
        url: command === 'serve' ? match[1] : undefined,
        tail: () => recent.slice(-4000),
        async kill(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
  });
}
