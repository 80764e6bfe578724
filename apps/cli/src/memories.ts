// Entry of the `memories` CLI (bundled to dist/cli/memories.cjs by `npm run build`).
import { homedir } from 'node:os';
import { createDaemonClientConnector } from './daemon-connector.client';
import { daemonBundlePath, processAlive, spawnDetachedDaemon } from './daemon-process';
import { runCli } from './run-cli';

export function main(argv: readonly string[]): Promise<number> {
  const daemonBundle = daemonBundlePath(__dirname);
  return runCli(
    argv,
    {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      isTTY: process.stdin.isTTY === true,
      env: process.env,
      cwd: process.cwd(),
    },
    {
      connector: createDaemonClientConnector(),
      spawnDaemon: (dataDir, configPath) => spawnDetachedDaemon(daemonBundle, dataDir, configPath),
      processAlive,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      now: () => Date.now(),
      platform: process.platform,
      homedir: homedir(),
    },
  );
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`memories: internal: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 16;
  },
);
