import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const MAIN = path.join(import.meta.dirname, '..', '..', 'src', 'main.ts');

/** A real `quarry serve` process on a data directory, listening on a free loopback port. */
export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** What the server wrote on stdout (its log lines) up to and including the address line. */
  readonly startupLog: string;
  /** Sends `signal` and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node src/main.ts serve --data DIR --port 0` and resolves once it logs its address.
 * `env` adds to (and overrides) the test's environment; `args` are more options of `serve`
 * (`--demo`).
 */
export function startServerProcess(
  dataDir: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', MAIN, 'serve', '--data', dataDir, '--port', '0', ...args],
    {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        QUARRY_ALLOW_PRIVATE_NETWORK: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let buffered = '';
    let errors = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time: ${errors.slice(-2000)}`));
    }, 60_000); // a start-up limit, not a speed check: loaded machines have taken over 30 s
    child.stderr!.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"address":"(http:\/\/[^"]+)"/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        const startupLog = buffered;
        // Keep draining output so the child never blocks on a full pipe.
        buffered = '';
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve({
          url: match[1],
          child,
          startupLog,
          async kill(signal = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
      } else if (buffered.length > 1_000_000) {
        buffered = buffered.slice(-10_000);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with code ${code}: ${errors.slice(-2000)}`));
    });
  });
}
