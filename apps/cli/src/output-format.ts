import { type AssetSummary, type HistoryEntry, type StatusResult, type VaultSummary } from '@arslan/protocol';

export function isoTime(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString();
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((row) => (row[col] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function assetTable(assets: readonly AssetSummary[]): string {
  if (assets.length === 0) return 'no memories';
  return table(
    ['ASSET ID', 'KIND', 'STATE', 'UPDATED', 'TITLE'],
    assets.map((a) => [a.asset_id, a.kind, a.state, isoTime(a.updated_at), oneLine(a.title)]),
  );
}

export function historyTable(revisions: readonly HistoryEntry[]): string {
  return table(
    ['REVISION', 'CREATED', 'PARENTS', 'TOMBSTONE', 'DEVICE'],
    revisions.map((r) => [
      r.revision_id,
      isoTime(r.created_at),
      r.parents.length === 0 ? '-' : r.parents.map((p) => p.slice(0, 12)).join(','),
      r.tombstone ? 'yes' : 'no',
      r.device_fingerprint.slice(0, 16),
    ]),
  );
}

export function vaultTable(vaults: readonly VaultSummary[]): string {
  if (vaults.length === 0) return 'no vaults';
  return table(
    ['NAME', 'VAULT ID', 'DEVICE-ONLY'],
    vaults.map((v) => [v.name, v.vault_id, v.device_only ? 'yes' : 'no']),
  );
}

export function statusText(s: StatusResult): string {
  return [
    `initialized: ${yes(s.initialized)}`,
    `unlocked:    ${s.unlocked ? `yes (locks when idle at ${isoTime(s.unlock_idle_expires_at)})` : 'no'}`,
    `sudo:        ${yes(s.sudo)}`,
    `device:      ${s.device_fingerprint ?? '-'}`,
    `data dir:    ${s.data_dir}`,
    `daemon pid:  ${s.pid}`,
    `vaults:      ${s.vaults.length === 0 ? '-' : s.vaults.map((v) => v.name).join(', ')}`,
  ].join('\n');
}

function yes(value: boolean): string {
  return value ? 'yes' : 'no';
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}
