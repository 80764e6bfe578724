// Card ops of the vault service (MCP-5, MCP-11..13, OTP-9/10, CRED-1): card_write, card_link,
// card_graph over a LocalVaultService. Each write is ONE appendRevisions call (one commit),
// including the credential assets a terminal write stores for the card's secrets.
import {
  CARD_LABEL_PATTERN,
  MAX_CARD_GRAPH_DEPTH,
  MAX_CARD_GRAPH_NODES,
  MAX_CARD_LINKS,
  MAX_SECRET_VALUE_BYTES,
  type CardGraphEdge,
  type CardGraphNode,
  type CardLink,
  type VaultOpArgs,
  type VaultOpResults,
} from '@arslan/protocol';
import { bytesToHex } from '@arslan/util';
import { type AssetContent, type CardData, emptyCard } from './asset-content';
import { assetStateOf, newestHead, type AssetIndex } from './asset-index';
import { checkMarkersResolve, checkSecretLabels, hasSecretMarker, mergeFields } from './card-content';
import type { RevisionItem } from './revision-append';
import { DEFAULT_VAULT, type VaultIndex, findVault } from './vault-index';
import { serviceError } from './vault-service.errors';
import type { CardSurface } from './vault-service.port';
import type { LocalVaultService } from './vault-service';

const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

function newAssetId(service: LocalVaultService): string {
  return bytesToHex(service.random.randomBytes(16));
}

/** A card that may be written: exists, not deleted, kind card, not conflicted. */
function writableCard(service: LocalVaultService, vault: VaultIndex, cardId: string): AssetIndex {
  const asset = service.asset(vault, cardId);
  const state = assetStateOf(asset);
  if (state === 'deleted') throw serviceError('not_found', 'the card is deleted');
  if (service.kindIn(vault, cardId, asset) !== 'card')
    throw serviceError('bad_request', 'the asset is not a card');
  if (state === 'conflicted') throw serviceError('conflicted', 'the card is conflicted; use resolve');
  return asset;
}

function cardOf(content: AssetContent): CardData {
  return content.card ?? emptyCard();
}

export function cardWrite(
  service: LocalVaultService,
  args: VaultOpArgs<'card_write'>,
  surface: CardSurface,
): VaultOpResults['card_write'] {
  const name = args.vault ?? DEFAULT_VAULT;
  const vault = findVault(service.serviceState(), name);
  if (surface !== 'terminal' && surface !== 'mcp') throw serviceError('bad_request', 'unknown surface');
  let old: AssetContent | undefined;
  let parents: string[] = [];
  if (args.card_id !== undefined) {
    const asset = writableCard(service, vault, args.card_id);
    old = service.headContent(vault, args.card_id, asset);
    parents = asset.heads.map((h) => h.id);
  }
  const oldCard = old ? cardOf(old) : emptyCard();
  // OTP-9: an omitted body or field keeps its value; an empty string clears it.
  const body = args.body ?? old?.body ?? '';
  const fields = mergeFields(oldCard.fields, args.fields);
  const secrets = new Map(Object.entries(oldCard.secrets));
  const items: RevisionItem[] = [];

  if (surface === 'mcp') {
    // MCP-12: no secret map, and a card with secret references cannot be updated over MCP.
    if ((args as { secrets?: unknown }).secrets !== undefined)
      throw serviceError('bad_request', 'card_write over MCP has no secret map (MCP-12)');
    if (secrets.size > 0 || (old && hasSecretMarker([old.body, ...Object.values(oldCard.fields)])))
      throw serviceError(
        'bad_request',
        'the card holds secret references; edit it from the terminal (MCP-12)',
      );
    if (hasSecretMarker([body, ...Object.values(fields)]))
      throw serviceError('bad_request', 'secret markers cannot be written over MCP (MCP-12)');
  } else {
    const given = Object.entries(args.secrets ?? {});
    checkSecretLabels(given.map(([label]) => label));
    for (const [label, value] of given) {
      if (utf8Bytes(value) > MAX_SECRET_VALUE_BYTES)
        throw serviceError('bad_request', 'secret value too large');
      const mapped = secrets.get(label);
      const current = mapped === undefined ? undefined : liveCredential(service, vault, mapped);
      if (value === '') {
        // An empty value unmaps the label and deletes its credential.
        secrets.delete(label);
        if (current && mapped !== undefined)
          items.push({
            assetId: mapped,
            parents: current.heads.map((h) => h.id),
            content: { kind: 'credential', title: '', body: '' },
            tombstone: true,
            indexTitle: newestHead(current).title,
          });
        continue;
      }
      const credentialId = current && mapped !== undefined ? mapped : newAssetId(service);
      items.push({
        assetId: credentialId,
        parents: current ? current.heads.map((h) => h.id) : [],
        content: { kind: 'credential', title: `${args.title} / ${label}`, body: value },
        tombstone: false,
      });
      secrets.set(label, credentialId);
    }
  }
  checkSecretLabels(secrets.keys());
  const card: CardData = {
    fields,
    links: oldCard.links,
    secrets: Object.fromEntries([...secrets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  checkMarkersResolve(body, card);
  const cardId = args.card_id ?? newAssetId(service);
  items.push({
    assetId: cardId,
    parents,
    content: { kind: 'card', title: args.title, body, card },
    tombstone: false,
  });
  const ids = service.appendRevisions(name, items);
  for (const item of items) service.rememberKind(vault, item.assetId, item.content.kind ?? 'memory');
  return { vault: name, card_id: cardId, revision_id: ids[ids.length - 1] as string };
}

/** The credential a label maps to, if it is still a live (or conflicted) credential of this vault. */
function liveCredential(
  service: LocalVaultService,
  vault: VaultIndex,
  assetId: string,
): AssetIndex | undefined {
  const asset = service.assetIndex().find(vault.vault_id, assetId);
  if (!asset || assetStateOf(asset) === 'deleted') return undefined;
  return service.kindIn(vault, assetId, asset) === 'credential' ? asset : undefined;
}

export function cardLink(
  service: LocalVaultService,
  args: VaultOpArgs<'card_link'>,
): VaultOpResults['card_link'] {
  const name = args.vault ?? DEFAULT_VAULT;
  const vault = findVault(service.serviceState(), name);
  if (!CARD_LABEL_PATTERN.test(args.rel)) throw serviceError('bad_request', 'bad link relation');
  if (args.from === args.to) throw serviceError('bad_request', 'a card cannot link to itself');
  const fromAsset = writableCard(service, vault, args.from);
  // A link is only added to a live card; one to a card deleted since may still be removed.
  if (args.remove !== true) {
    const toAsset = service.asset(vault, args.to);
    if (assetStateOf(toAsset) === 'deleted') throw serviceError('not_found', 'the target card is deleted');
    if (service.kindIn(vault, args.to, toAsset) !== 'card')
      throw serviceError('bad_request', 'the target is not a card');
  }
  const old = service.headContent(vault, args.from, fromAsset);
  const card = cardOf(old);
  const has = card.links.some((l) => l.to === args.to && l.rel === args.rel);
  const base = { vault: name, from: args.from, to: args.to, rel: args.rel };
  if (has !== (args.remove === true))
    return { ...base, revision_id: newestHead(fromAsset).id, changed: false };
  let links: CardLink[];
  if (args.remove === true) {
    links = card.links.filter((l) => !(l.to === args.to && l.rel === args.rel));
  } else {
    if (card.links.length >= MAX_CARD_LINKS)
      throw serviceError('limit_reached', `a card has at most ${MAX_CARD_LINKS} links`);
    links = [...card.links, { to: args.to, rel: args.rel }];
  }
  const ids = service.appendRevisions(name, [
    {
      assetId: args.from,
      parents: fromAsset.heads.map((h) => h.id),
      content: { ...old, kind: 'card', card: { ...card, links } },
      tombstone: false,
    },
  ]);
  return { ...base, revision_id: ids[0] as string, changed: true };
}

interface GraphCard {
  title: string;
  fields: Record<string, string>;
  links: CardLink[];
}

export function cardGraph(
  service: LocalVaultService,
  args: VaultOpArgs<'card_graph'>,
): VaultOpResults['card_graph'] {
  const name = args.vault ?? DEFAULT_VAULT;
  const vault = findVault(service.serviceState(), name);
  const depth = args.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_CARD_GRAPH_DEPTH)
    throw serviceError('bad_request', `depth is 1..${MAX_CARD_GRAPH_DEPTH}`);
  const root = service.asset(vault, args.card_id);
  if (assetStateOf(root) === 'deleted') throw serviceError('not_found', 'the card is deleted');
  if (service.kindIn(vault, args.card_id, root) !== 'card')
    throw serviceError('bad_request', 'the asset is not a card');

  // Every card that is not deleted (links in both directions need the incoming ones too).
  const cards = new Map<string, GraphCard>();
  for (const [assetId, asset] of service.assetIndex().assets(vault.vault_id)) {
    if (assetStateOf(asset) === 'deleted' || service.kindIn(vault, assetId, asset) !== 'card') continue;
    const content = service.headContent(vault, assetId, asset);
    const card = cardOf(content);
    cards.set(assetId, { title: content.title, fields: card.fields, links: card.links });
  }
  const neighbours = new Map<string, Set<string>>();
  const edges: CardGraphEdge[] = [];
  const link = (a: string, b: string): void => {
    if (!neighbours.has(a)) neighbours.set(a, new Set());
    neighbours.get(a)?.add(b);
  };
  for (const [from, card] of cards) {
    for (const l of card.links) {
      if (!cards.has(l.to)) continue;
      edges.push({ from, to: l.to, rel: l.rel });
      link(from, l.to);
      link(l.to, from);
    }
  }

  const order = [args.card_id];
  const seen = new Set(order);
  let frontier = [args.card_id];
  let truncated = false;
  for (let level = 0; level < depth && frontier.length > 0 && !truncated; level++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const other of [...(neighbours.get(id) ?? [])].sort()) {
        if (seen.has(other)) continue;
        if (seen.size >= MAX_CARD_GRAPH_NODES) {
          truncated = true;
          break;
        }
        seen.add(other);
        next.push(other);
        order.push(other);
      }
      if (truncated) break;
    }
    frontier = next;
  }
  const nodes: CardGraphNode[] = order.map((id) => {
    const card = cards.get(id) as GraphCard;
    return { card_id: id, title: card.title, fields: card.fields };
  });
  const inGraph = edges
    .filter((e) => seen.has(e.from) && seen.has(e.to))
    .sort((a, b) => cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.rel, b.rel));
  const details = { vault: name, op: 'card_graph', card_id: args.card_id, nodes: nodes.length };
  // VAULT-13: the read intent is committed before titles and fields leave the service.
  return service.requireStore().withIntent('read', details, () => ({
    vault: name,
    root: args.card_id,
    nodes,
    edges: inGraph,
    truncated,
  }));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
