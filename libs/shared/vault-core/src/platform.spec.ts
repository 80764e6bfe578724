import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as api from './index';
import { VAULT_FORMAT_ERROR_CODES } from './vault-core.errors';

const srcFiles = readdirSync(__dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
const NODE_BUILTINS = [
  'fs',
  'path',
  'crypto',
  'os',
  'buffer',
  'child_process',
  'util',
  'stream',
  'url',
  'process',
];

describe('platform:any and the public surface', () => {
  it('src/ non-spec files import no node: module and no Node builtin, and use no Node globals', () => {
    expect(srcFiles.length).toBeGreaterThan(10);
    for (const file of srcFiles) {
      const text = readFileSync(join(__dirname, file), 'utf8');
      const specifiers = [
        ...text.matchAll(/from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|require\(\s*'([^']+)'\s*\)/g),
      ].map((m) => m[1] ?? m[2] ?? m[3]);
      for (const s of specifiers) {
        expect(`${file}: ${s}`).not.toMatch(/: node:/);
        expect(NODE_BUILTINS).not.toContain(s);
      }
      expect(`${file}: ${text}`).not.toMatch(/\b(Buffer|process|__dirname|require)\s*[.(]/);
    }
  });

  it('pins the error codes and format constants', () => {
    expect(VAULT_FORMAT_ERROR_CODES).toEqual([
      'unsupported_version',
      'bad_password',
      'malformed',
      'tampered',
      'bad_signature',
      'bad_certificate',
      'device_not_allowed',
      'id_mismatch',
      'unknown_parent',
      'duplicate_revision',
      'cycle',
      'asset_mismatch',
      'unresolved_heads',
    ]);
    expect(api.VAULT_FORMAT_VERSION).toBe(1);
    expect(api.CHUNK_SIZE).toBe(256 * 1024);
    expect(api.MASTER_KEY_AAD).toBe('memories/master/v1');
    expect(api.ARGON2ID_PARAMS).toMatchObject({
      version: 0x13,
      memory_kib: 65536,
      iterations: 3,
      parallelism: 1,
    });
  });

  it('pins the exported runtime names (adding one is a deliberate API change)', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ARGON2ID_PARAMS",
        "CHUNK_AAD_TAG",
        "CHUNK_SIZE",
        "CONTENT_NONCE_BYTES",
        "DATA_KEY_AAD_TAG",
        "DEVICE_CERTIFICATE_TAG",
        "EPOCH_KEY_AAD_TAG",
        "KEY_BYTES",
        "MASTER_KEY_AAD",
        "MAX_ID_BYTES",
        "MAX_PARENTS",
        "NONCE_BYTES",
        "REVISION_BINARY_VERSION",
        "REVISION_ROW_VERSION",
        "REVISION_SIGNATURE_TAG",
        "SALT_BYTES",
        "SEALED_TABLES",
        "TAG_BYTES",
        "VAULT_FORMAT_ERROR_CODES",
        "VAULT_FORMAT_VERSION",
        "VaultFormatError",
        "WRAPPED_KEY_BYTES",
        "appendRevision",
        "assetHeads",
        "assetState",
        "checkResolution",
        "checkVaultVectorCase",
        "chunkCount",
        "createEpochKey",
        "createKeyring",
        "createResolution",
        "currentView",
        "decodeRevisionRow",
        "decryptContent",
        "deviceCertificateSignedBytes",
        "ed25519PublicKey",
        "ed25519Sign",
        "ed25519Verify",
        "encodeRevisionRow",
        "encryptContent",
        "generateDeviceKeys",
        "generateUserIdentity",
        "isConflicted",
        "isVaultFormatError",
        "issueDeviceCertificate",
        "nobleCipher",
        "nobleEd25519",
        "openRevisionContent",
        "openState",
        "parseKeyringHeader",
        "parseRevisionBinary",
        "parseRevisionJson",
        "parseVaultVectorFile",
        "readRevision",
        "revisionIdOf",
        "revisionSignedBytes",
        "revisionToBinary",
        "revisionToJson",
        "sealState",
        "sealedValueAad",
        "setCipherProvider",
        "setEd25519Provider",
        "systemRandom",
        "unlockKeyring",
        "unwrapDataKey",
        "unwrapEpochKey",
        "verifyDeviceCertificate",
        "verifyRevision",
        "wrapDataKey",
        "writeRevision",
      ]
    `);
  });

  it('does not export the test-only KDF or RNG', () => {
    expect(Object.keys(api)).not.toEqual(expect.arrayContaining(['testOnlyKdf']));
    expect(Object.keys(api).some((k) => /testOnly|recording/i.test(k))).toBe(false);
  });
});
