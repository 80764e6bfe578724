// Pure card rules: secret markers (MCP-11..13, OTP-10), field updates (OTP-9), bounds and the
// search text of a card (RAG-3). No I/O; the service (card-service.ts) applies them.
import {
  CARD_LABEL_PATTERN,
  MAX_CARD_FIELD_NAME_CHARS,
  MAX_CARD_FIELD_VALUE_BYTES,
  MAX_CARD_FIELDS,
  MAX_CARD_SECRETS,
  SECRET_MARKER_PREFIX,
} from '@arslan/protocol';
import type { CardData } from './asset-content';
import { serviceError } from './vault-service.errors';

/** A complete marker; the label syntax is checked separately so a malformed one is reported. */
const MARKER = /\{\{secret:([^{}]*)\}\}/g;

const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Whether any text holds a secret marker (or the start of one). */
export function hasSecretMarker(texts: Iterable<string>): boolean {
  for (const text of texts) if (text.includes(SECRET_MARKER_PREFIX)) return true;
  return false;
}

/**
 * The labels referenced by `{{secret:label}}` markers. Every occurrence of `{{secret:` must start
 * a well-formed marker with a valid label (else `bad_request`), so the markers can be removed
 * exactly from the search text.
 */
export function secretMarkerLabels(text: string): string[] {
  const labels: string[] = [];
  let covered = 0;
  for (const match of text.matchAll(MARKER)) {
    const label = match[1] as string;
    if (!CARD_LABEL_PATTERN.test(label)) throw serviceError('bad_request', 'malformed secret marker label');
    if (text.slice(covered, match.index).includes(SECRET_MARKER_PREFIX))
      throw serviceError('bad_request', 'malformed secret marker');
    covered = match.index + match[0].length;
    labels.push(label);
  }
  if (text.slice(covered).includes(SECRET_MARKER_PREFIX))
    throw serviceError('bad_request', 'malformed secret marker');
  return labels;
}

/** Terminal surface: every marker in body and field values names a label of `secrets`. */
export function checkMarkersResolve(body: string, card: CardData): void {
  for (const text of [body, ...Object.values(card.fields)]) {
    for (const label of secretMarkerLabels(text)) {
      if (!Object.hasOwn(card.secrets, label))
        throw serviceError('bad_request', `secret marker names an unknown label: ${label}`);
    }
  }
}

/** OTP-9: a given value sets a field, an empty string removes it; fields not given are kept. */
export function mergeFields(
  old: Readonly<Record<string, string>>,
  updates: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const merged = new Map(Object.entries(old));
  for (const [name, value] of Object.entries(updates ?? {})) {
    if (name.length === 0 || name.length > MAX_CARD_FIELD_NAME_CHARS || CONTROL.test(name))
      throw serviceError('bad_request', 'bad field name');
    if (utf8Bytes(value) > MAX_CARD_FIELD_VALUE_BYTES)
      throw serviceError('bad_request', 'field value too large');
    if (value === '') merged.delete(name);
    else merged.set(name, value);
  }
  if (merged.size > MAX_CARD_FIELDS)
    throw serviceError('bad_request', `a card has at most ${MAX_CARD_FIELDS} fields`);
  return Object.fromEntries([...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function checkSecretLabels(labels: Iterable<string>): void {
  let count = 0;
  for (const label of labels) {
    count++;
    if (!CARD_LABEL_PATTERN.test(label)) throw serviceError('bad_request', 'bad secret label');
  }
  if (count > MAX_CARD_SECRETS)
    throw serviceError('bad_request', `a card has at most ${MAX_CARD_SECRETS} secrets`);
}

/** Removes every secret marker (OTP-10: markers and credentials stay out of search indexes). */
export function withoutSecretMarkers(text: string): string {
  return text.replace(MARKER, '').split(SECRET_MARKER_PREFIX).join('');
}

/** RAG-3 / OTP-10: the indexed body of a card: its body and field values, markers removed. */
export function cardIndexBody(body: string, card: CardData): string {
  return [body, ...Object.values(card.fields)]
    .map(withoutSecretMarkers)
    .filter((t) => t.trim() !== '')
    .join('\n');
}

/** The body text a diff of a card compares: body, then `name: value` per field (markers literal). */
export function cardDiffBody(body: string, card: CardData): string {
  const fields = Object.entries(card.fields).map(([name, value]) => `${name}: ${value}`);
  return fields.length === 0 ? body : `${body}\n--- fields ---\n${fields.join('\n')}`;
}
