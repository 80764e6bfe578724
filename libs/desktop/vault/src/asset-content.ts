// The serialized content of an asset revision: canonical JSON {title, body}.
import { utf8DecodeStrict, utf8Encode } from '@arslan/util';
import { canonicalJson } from './canonical-json';
import { serviceError } from './vault-service.errors';

export interface AssetContent {
  title: string;
  body: string;
}

export function encodeContent(content: AssetContent): Uint8Array {
  return utf8Encode(canonicalJson({ title: content.title, body: content.body }));
}

export function decodeContent(bytes: Uint8Array): AssetContent {
  let value: unknown;
  try {
    value = JSON.parse(utf8DecodeStrict(bytes) ?? '');
  } catch {
    throw serviceError('corrupt', 'revision content is not JSON');
  }
  const v = value as Partial<AssetContent> | null;
  if (typeof v !== 'object' || v === null || typeof v.title !== 'string' || typeof v.body !== 'string')
    throw serviceError('corrupt', 'revision content shape');
  return { title: v.title, body: v.body };
}
