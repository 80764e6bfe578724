// The serialized content of an asset revision: canonical JSON.
//   memory:              {title, body}            (no `kind`: the format from before kinds; old stores decode as memory)
//   private, credential: {kind, title, body}
//   card:                {kind: 'card', title, body, fields, links, secrets}  (MCP-11..13, OTP-9)
import { ASSET_KINDS, type AssetKind, type CardLink } from '@arslan/protocol';
import { utf8DecodeStrict, utf8Encode } from '@arslan/util';
import { canonicalJson } from './canonical-json';
import { serviceError } from './vault-service.errors';

/** The structured part of a card revision. */
export interface CardData {
  /** Field name → value (values may hold literal `{{secret:label}}` markers). */
  fields: Record<string, string>;
  links: CardLink[];
  /** Secret label → credential asset id (never a value). */
  secrets: Record<string, string>;
}

export interface AssetContent {
  /** Absent means `memory`. `decodeContent` always sets it. */
  kind?: AssetKind;
  title: string;
  body: string;
  /** Present exactly when kind is `card`. */
  card?: CardData;
}

export function kindOfContent(content: AssetContent): AssetKind {
  return content.kind ?? 'memory';
}

export function emptyCard(): CardData {
  return { fields: {}, links: [], secrets: {} };
}

export function encodeContent(content: AssetContent): Uint8Array {
  const kind = kindOfContent(content);
  if (kind === 'memory') return utf8Encode(canonicalJson({ title: content.title, body: content.body }));
  if (kind !== 'card') return utf8Encode(canonicalJson({ kind, title: content.title, body: content.body }));
  const card = content.card ?? emptyCard();
  return utf8Encode(
    canonicalJson({
      kind,
      title: content.title,
      body: content.body,
      fields: card.fields,
      links: card.links.map((l) => ({ to: l.to, rel: l.rel })),
      secrets: card.secrets,
    }),
  );
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

function isLinks(value: unknown): value is CardLink[] {
  return (
    Array.isArray(value) &&
    value.every(
      (l) =>
        typeof l === 'object' &&
        l !== null &&
        typeof (l as CardLink).to === 'string' &&
        typeof (l as CardLink).rel === 'string' &&
        Object.keys(l).length === 2,
    )
  );
}

const KEYS: Record<AssetKind, string[]> = {
  memory: ['body', 'kind', 'title'],
  private: ['body', 'kind', 'title'],
  credential: ['body', 'kind', 'title'],
  card: ['body', 'fields', 'kind', 'links', 'secrets', 'title'],
};

export function decodeContent(bytes: Uint8Array): AssetContent {
  let value: unknown;
  try {
    value = JSON.parse(utf8DecodeStrict(bytes) ?? '');
  } catch {
    throw serviceError('corrupt', 'revision content is not JSON');
  }
  const v = value as (Partial<AssetContent> & Partial<CardData> & { kind?: unknown }) | null;
  if (typeof v !== 'object' || v === null || typeof v.title !== 'string' || typeof v.body !== 'string')
    throw serviceError('corrupt', 'revision content shape');
  const kind = v.kind === undefined ? 'memory' : v.kind;
  if (typeof kind !== 'string' || !(ASSET_KINDS as readonly string[]).includes(kind))
    throw serviceError('corrupt', 'revision content kind');
  const assetKind = kind as AssetKind;
  // Fail closed: a field of another kind (e.g. `secrets` on a memory) is corrupt, not ignored.
  const allowed = KEYS[assetKind];
  if (Object.keys(v).some((k) => !allowed.includes(k)))
    throw serviceError('corrupt', 'revision content shape');
  if (assetKind !== 'card') return { kind: assetKind, title: v.title, body: v.body };
  if (!isStringRecord(v.fields) || !isLinks(v.links) || !isStringRecord(v.secrets))
    throw serviceError('corrupt', 'card content shape');
  return {
    kind: 'card',
    title: v.title,
    body: v.body,
    card: {
      fields: Object.fromEntries(Object.entries(v.fields)),
      links: v.links.map((l) => ({ to: l.to, rel: l.rel })),
      secrets: Object.fromEntries(Object.entries(v.secrets)),
    },
  };
}
