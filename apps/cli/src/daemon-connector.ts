import { type VaultOp, type VaultOpArgs, type VaultOpResults } from '@arslan/protocol';

/** One open connection to the vault daemon. `call` throws IpcError for daemon error responses. */
export interface DaemonSession {
  call<Op extends VaultOp>(op: Op, args: VaultOpArgs<Op>): Promise<VaultOpResults[Op]>;
  close(): Promise<void> | void;
}

/**
 * The CLI's port to the daemon. `connect` throws DaemonNotRunningError (cli-errors) when
 * nothing listens; the real adapter lives in daemon-connector.client.ts, tests inject fakes.
 */
export interface DaemonConnector {
  connect(dataDir: string): Promise<DaemonSession>;
  socketPath(dataDir: string): string;
}
