// npm run bench:envelope — seal+open throughput of both envelope backends against
// libsodium-wrappers (crypto_box_seal + crypto_sign_detached) in the same run.
// Prints one JSON line; record results in docs/benchmarks.md.
import sodium from 'libsodium-wrappers';
import type { EnvelopeCrypto, EnvelopeProfile } from '@arslan/envelope';
import type * as EnvelopeApi from '@arslan/envelope';
import { opsPerSecond, round } from './bench-timer';
import { importBundled } from './bundle';

type Bundle = typeof EnvelopeApi & { nodeCrypto: EnvelopeCrypto };
let api: Bundle;

const KiB = 1024;
const MiB = 1024 * KiB;

function envelopeCycle(crypto: EnvelopeCrypto, profile: EnvelopeProfile, payloadBytes: number): () => void {
  const { buildPlaintext, generateDeviceKeys, openEnvelope, sealEnvelope } = api;
  const s = generateDeviceKeys(crypto);
  const r = generateDeviceKeys(crypto);
  const header =
    profile === 'bridge'
      ? ['event', s.fingerprint, r.fingerprint, '1', '0', '1767225600000']
      : [s.fingerprint, r.fingerprint, 'vault', 'sync-export', '1767225600000'];
  const skeleton = buildPlaintext(profile, header, { pad: '' }).length;
  const plaintext = buildPlaintext(profile, header, { pad: 'a'.repeat(payloadBytes - skeleton) });
  const limit = 2 * MiB;
  const options = {
    recipientExchangePrivateKey: r.exchangePrivateKey,
    acceptedSenders: [s.signingPublicKey],
    maxCiphertextBytes: limit,
  };
  return () => {
    const wire = sealEnvelope(crypto, {
      profile,
      header,
      plaintext,
      senderSigningSeed: s.signingSeed,
      recipientExchangePublicKey: r.exchangePublicKey,
      maxCiphertextBytes: limit,
    });
    if (openEnvelope(crypto, wire, options).plaintext.length !== plaintext.length)
      throw new Error('bench: round trip failed');
  };
}

function sodiumCycle(payloadBytes: number): () => void {
  const box = sodium.crypto_box_keypair();
  const signer = sodium.crypto_sign_keypair();
  const message = sodium.randombytes_buf(payloadBytes);
  return () => {
    const sealed = sodium.crypto_box_seal(message, box.publicKey);
    const signature = sodium.crypto_sign_detached(sealed, signer.privateKey);
    if (!sodium.crypto_sign_verify_detached(signature, sealed, signer.publicKey))
      throw new Error('bench: verify failed');
    if (sodium.crypto_box_seal_open(sealed, box.publicKey, box.privateKey).length !== payloadBytes) {
      throw new Error('bench: open failed');
    }
  };
}

async function main(): Promise<void> {
  await sodium.ready;
  api = await importBundled<Bundle>(
    "export * from '@arslan/envelope'; export { nodeCrypto } from '@arslan/envelope-node';",
    'node',
  );
  const { nobleCrypto, nodeCrypto } = api;
  const small = {
    node: opsPerSecond(envelopeCycle(nodeCrypto, 'bridge', KiB)),
    noble: opsPerSecond(envelopeCycle(nobleCrypto, 'bridge', KiB)),
    libsodium: opsPerSecond(sodiumCycle(KiB)),
  };
  const mbps = (ops: number) => (ops * MiB) / 1e6;
  const large = {
    node: mbps(opsPerSecond(envelopeCycle(nodeCrypto, 'transfer', MiB), 3000)),
    noble: mbps(opsPerSecond(envelopeCycle(nobleCrypto, 'transfer', MiB), 3000)),
    libsodium: mbps(opsPerSecond(sodiumCycle(MiB), 3000)),
  };
  // Bulk speed of the primitives every 1 MiB cycle runs (Ed25519 hashes c with SHA-512
  // three times per cycle; ChaCha20-Poly1305 runs twice), to show where the time goes.
  const bulk = sodium.randombytes_buf(MiB);
  const key = new Uint8Array(32);
  const nonce = new Uint8Array(12);
  const signer = api.generateDeviceKeys(nodeCrypto);
  const signature = nodeCrypto.ed25519Sign(signer.signingSeed, key);
  const verifyBulk = (crypto: EnvelopeCrypto) => () =>
    crypto.ed25519Verify(signer.signingPublicKey, bulk, signature);
  const primitives = {
    noble_ed25519_verify_mb_s: mbps(opsPerSecond(verifyBulk(nobleCrypto), 1000)),
    node_ed25519_verify_mb_s: mbps(opsPerSecond(verifyBulk(nodeCrypto), 1000)),
    libsodium_ed25519_verify_mb_s: mbps(
      opsPerSecond(() => sodium.crypto_sign_verify_detached(signature, bulk, signer.signingPublicKey), 1000),
    ),
    noble_chacha20poly1305_mb_s: mbps(
      opsPerSecond(() => nobleCrypto.chacha20Poly1305Seal(key, nonce, bulk, key), 1000),
    ),
    node_chacha20poly1305_mb_s: mbps(
      opsPerSecond(() => nodeCrypto.chacha20Poly1305Seal(key, nonce, bulk, key), 1000),
    ),
  };
  const result = {
    bench: 'envelope',
    unit_small: 'seal+open cycles/s, 1 KiB bridge message',
    unit_large: 'MB/s of seal+open, 1 MiB payload',
    node_1kib_ops_s: round(small.node),
    noble_1kib_ops_s: round(small.noble),
    libsodium_1kib_ops_s: round(small.libsodium),
    node_1mib_mb_s: round(large.node),
    noble_1mib_mb_s: round(large.noble),
    libsodium_1mib_mb_s: round(large.libsodium),
    ratio_node_vs_libsodium_1kib: round(small.node / small.libsodium, 3),
    ratio_noble_vs_libsodium_1kib: round(small.noble / small.libsodium, 3),
    ratio_node_vs_libsodium_1mib: round(large.node / large.libsodium, 3),
    ratio_noble_vs_libsodium_1mib: round(large.noble / large.libsodium, 3),
    ...Object.fromEntries(Object.entries(primitives).map(([name, value]) => [name, round(value)])),
    node: process.version,
  };
  console.log(JSON.stringify(result));
}

void main();
