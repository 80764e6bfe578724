/** IPC-2: wrapper version of every frame. */
export const IPC_VERSION = 1;
/** Largest frame (request or response) in bytes; the spec sets none (IPC TS mapping), we pick 16 MiB. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** IPC-7. */
export const MAX_IPC_CLIENTS = 16;
/** IPC-8: a started frame must be complete within this time, and a response must be written within it. */
export const FRAME_DEADLINE_MS = 10_000;
/** A connection with no frame in flight is closed after this long. */
export const IDLE_CONNECTION_MS = 120_000;
/** IPC-11. */
export const UNLOCK_IDLE_MS = 15 * 60_000;
/** IPC-12. */
export const SUDO_MAX_MS = 15 * 60_000;
export const SUDO_IDLE_MS = 5 * 60_000;
export const MAX_PASSWORD_CHARS = 1024;
export const MAX_TITLE_CHARS = 1024;
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
export const MAX_IMPORT_ITEMS = 1000;
