// Entry of the `arslan` CLI (bundled to dist/cli/arslan.cjs by `npm run build`).
import { homedir } from 'node:os';
import { EXIT } from './arslan-args';
import { runArslan } from './arslan-cli';
import { processAlive } from './daemon-process';

export function main(argv: readonly string[]): Promise<number> {
  return runArslan(argv, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    homedir: homedir(),
    onInterrupt: (handler) => {
      process.on('SIGINT', handler);
      return () => void process.off('SIGINT', handler);
    },
    processAlive,
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Idle keep-alive sockets of the provider's connection pool must not hold the process open;
    // exit once stdout and stderr have flushed (pipes are asynchronous on macOS).
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  },
  (error: unknown) => {
    process.stderr.write(`arslan: internal: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(EXIT.internal);
  },
);
