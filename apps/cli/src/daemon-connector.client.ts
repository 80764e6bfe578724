// The only file that touches @arslan/daemon-client: adapts it to the CLI's DaemonConnector port.
import { DaemonClient, DaemonUnavailableError, daemonSocketPath } from '@arslan/daemon-client';
import { DaemonNotRunningError } from './cli-errors';
import { type DaemonConnector, type DaemonSession } from './daemon-connector';

function notRunning(error: unknown): unknown {
  return error instanceof DaemonUnavailableError ? new DaemonNotRunningError() : error;
}

export function createDaemonClientConnector(): DaemonConnector {
  return {
    async connect(dataDir: string): Promise<DaemonSession> {
      let client: DaemonClient;
      try {
        client = await DaemonClient.connect(dataDir);
      } catch (error) {
        throw notRunning(error);
      }
      return {
        call: (op, args) =>
          client.call(op, args).catch((error: unknown) => {
            throw error instanceof DaemonUnavailableError
              ? new DaemonNotRunningError(`the daemon closed the connection: ${error.message}`)
              : error;
          }),
        close: () => client.close(),
      };
    },
    socketPath: (dataDir: string) => daemonSocketPath(dataDir),
  };
}
