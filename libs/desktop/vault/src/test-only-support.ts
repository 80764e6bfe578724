// Helpers for this lib's spec files only (not exported from index.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { concatBytes, utf8Encode } from '@arslan/util';
import type { PasswordKdf } from '@arslan/vault-core';
import { sha256 } from '@noble/hashes/sha2.js';

/** NOT Argon2id: a fast stand-in so tests that are not about the KDF stay quick. */
export const fastTestKdf: PasswordKdf = {
  deriveKey: async (password, salt) => sha256(concatBytes(utf8Encode('fast-test-kdf'), salt, password)),
};

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'arslan-vault-'));
}

export function pw(text: string): Uint8Array {
  return utf8Encode(text);
}

/** Every regular file under `dir` (recursively). */
export function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.isFile() ? [full] : [];
  });
}

/** Files under `dir` whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: Uint8Array): string[] {
  return filesUnder(dir).filter((file) => fs.readFileSync(file).includes(Buffer.from(needle)));
}
