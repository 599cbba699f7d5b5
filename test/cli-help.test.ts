/** `--help` of the program and of every command is written to stdout and exits 0 (issue 24 §10). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { buildProgram } from '../src/cli/index.ts';

const MAIN = path.join(import.meta.dirname, '..', 'src', 'main.ts');

test('--help goes to stdout for the program and every command', () => {
  const commands = buildProgram().commands.map((command) => command.name());
  assert.ok(commands.length >= 8);
  for (const args of [['--help'], ...commands.map((name) => [name, '--help'])]) {
    const run = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stdout, /^Usage: quarry/m, args.join(' '));
    assert.equal(run.stderr, '', args.join(' '));
  }
});
