// Unicode helpers shared by the chunker, the segmenters and the matchers.

/** Scripts written without spaces between words: a term in them matches as a substring (RAG-8, RAG-10). */
const NO_SPACE_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const HAN = /\p{Script=Han}/u;
/** Kana, plus the prolonged sound mark and kana iteration marks (Script=Common but only used in Japanese). */
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u309d\u309e\u30fd\u30fe]/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const LATIN_DIACRITICS = /[\u0300-\u036f]/g;
const ASCII_ONLY = /^[\0-\x7f]*$/;

export function hasNoSpaceScript(text: string): boolean {
  return NO_SPACE_SCRIPT.test(text);
}

export function isHan(ch: string): boolean {
  return HAN.test(ch);
}

export function isKana(ch: string): boolean {
  return KANA.test(ch);
}

/** A token worth indexing or querying: it holds at least one letter or digit. */
export function hasWordChar(token: string): boolean {
  return WORD_CHAR.test(token);
}

/**
 * The matching form of a word: NFKC, lowercase (locale-independent), and the combining diacritics of the
 * Latin/Greek/Cyrillic block removed, like FTS5 `unicode61 remove_diacritics 2` ("Café" matches "cafe").
 * Japanese voicing marks (U+3099/U+309A) are outside that block and survive.
 */
export function foldForMatch(text: string): string {
  // ASCII is unchanged by NFKC, NFD and NFC and holds no combining mark: only the lowercasing remains.
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  return text.normalize('NFKC').toLowerCase().normalize('NFD').replace(LATIN_DIACRITICS, '').normalize('NFC');
}
