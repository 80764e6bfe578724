// Run in a separate process by directory-lock.spec.ts (VAULT-15):
//   node --import tsx lock-probe.fixture.ts probe <dir>  → prints "opened" or "store_locked", exits
//   node --import tsx lock-probe.fixture.ts hold <dir>   → opens the store, prints "holding", waits to be killed
import { isVaultStoreError } from './vault-store.errors';
import { openStore } from './vault-store';
import { fastTestKdf } from './test-only-support';

const [mode, dir] = process.argv.slice(2);
if (!dir || (mode !== 'probe' && mode !== 'hold')) {
  process.stderr.write('usage: lock-probe.fixture.ts probe|hold <dir>\n');
  process.exit(2);
}
try {
  const store = openStore(dir, { kdf: fastTestKdf });
  if (mode === 'probe') {
    process.stdout.write('opened\n');
    store.close();
  } else {
    process.stdout.write('holding\n');
    setInterval(() => undefined, 60_000);
  }
} catch (error) {
  process.stdout.write(`${isVaultStoreError(error) ? error.code : 'error'}\n`);
  process.exitCode = isVaultStoreError(error) ? 0 : 1;
}
