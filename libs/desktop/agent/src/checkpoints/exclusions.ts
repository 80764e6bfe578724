// CKPT-13: what an undo checkpoint never saves and never restores. Rebuildable folders (package
// installs, Python environments, build outputs, caches) would blow the size limits and come back
// from a rebuild; secret-shaped files must not be copied into the app's data folder.
// `.git` is NOT excluded: it is the folder's history, not rebuildable, so it is saved and restored.

/** Folder names skipped wherever they appear in the working folder. */
export const REBUILDABLE_DIR_NAMES: ReadonlySet<string> = new Set([
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.tox',
  '.cache',
  '.parcel-cache',
  '.turbo',
  '.nx',
  '.gradle',
  '.next',
  '.nuxt',
  '.svelte-kit',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  'DerivedData',
  'Pods',
]);

const SECRET_EXACT =
  /^(?:\.env|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.htpasswd|\.git-credentials|credentials|credentials\.json|secrets?\.(?:json|ya?ml|toml)|authorized_keys|known_hosts)$/i;
const SECRET_PREFIX = /^(?:\.env\.|id_(?:rsa|dsa|ecdsa|ed25519))/i;
const SECRET_EXT = /\.(?:pem|key|p12|pfx|jks|keystore|kdbx|ppk|ovpn|gpg|asc|keychain|keychain-db)$/i;

/** A folder name that is rebuildable (not saved, not restored). */
export function isRebuildableDir(name: string): boolean {
  return REBUILDABLE_DIR_NAMES.has(name);
}

/** A file name that looks like it holds secrets (`.env*`, keys, certificates, credential files). */
export function isSecretShaped(name: string): boolean {
  return SECRET_EXACT.test(name) || SECRET_PREFIX.test(name) || SECRET_EXT.test(name);
}
