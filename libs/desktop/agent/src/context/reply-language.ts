// TURN-07: the reply language follows the user's latest message. Paths, URLs, e-mail addresses and
// code say nothing about the user's language and are removed before detection; a message with no
// words left is answered in the UI language. Local and deterministic: script ranges plus a small
// function-word list for Latin-script languages (no network, no model).

export interface ReplyLanguage {
  /** BCP 47 primary language tag, e.g. "ja", "en". */
  language: string;
  /** Where it came from: the message itself, or the UI language (no words to go by). */
  source: 'message' | 'ui';
}

/** Removes what is not prose: fenced and inline code, URLs, e-mails, paths, file names, numbers. */
export function proseOf(text: string): string {
  return text
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ')
    .replace(/\bwww\.\S+/gi, ' ')
    .replace(/\S+@\S+\.\S+/g, ' ')
    .replace(/(?:~|\.{1,2})?(?:[\\/][^\s\\/]+)+[\\/]?/g, ' ')
    .replace(/\b[A-Za-z]:\\\S*/g, ' ')
    .replace(/\b[\w-]+\.(?:[a-z]{1,5}\d?)\b/gi, ' ')
    .replace(/[\d_]+/g, ' ');
}

const SCRIPTS: Array<[RegExp, string]> = [
  [/[\u3040-\u30ff\u31f0-\u31ff]/gu, 'ja'], // kana: Japanese even when kanji dominate
  [/[\uac00-\ud7af\u1100-\u11ff]/gu, 'ko'],
  [/\p{Script=Han}/gu, 'zh'],
  [/\p{Script=Cyrillic}/gu, 'ru'],
  [/\p{Script=Arabic}/gu, 'ar'],
  [/\p{Script=Hebrew}/gu, 'he'],
  [/\p{Script=Thai}/gu, 'th'],
  [/\p{Script=Devanagari}/gu, 'hi'],
  [/\p{Script=Greek}/gu, 'el'],
];

/** Frequent function words; the language with the most hits wins. */
const LATIN_WORDS: Readonly<Record<string, readonly string[]>> = {
  en: [
    'the',
    'and',
    'is',
    'are',
    'to',
    'of',
    'in',
    'please',
    'what',
    'how',
    'can',
    'you',
    'this',
    'it',
    'for',
    'with',
    'my',
    'i',
    'a',
    'an',
  ],
  de: [
    'der',
    'die',
    'das',
    'und',
    'ist',
    'nicht',
    'bitte',
    'ich',
    'ein',
    'eine',
    'mit',
    'für',
    'wie',
    'was',
    'du',
    'sie',
    'den',
    'dem',
  ],
  fr: [
    'le',
    'la',
    'les',
    'et',
    'est',
    'une',
    'un',
    'des',
    'pour',
    'avec',
    'je',
    'vous',
    'que',
    'qui',
    'pas',
    'dans',
    'du',
    "s'il",
    'merci',
  ],
  es: [
    'el',
    'los',
    'las',
    'y',
    'es',
    'una',
    'por',
    'para',
    'con',
    'que',
    'qué',
    'cómo',
    'yo',
    'del',
    'favor',
    'puedes',
    'no',
  ],
  pt: [
    'o',
    'os',
    'as',
    'e',
    'é',
    'uma',
    'um',
    'para',
    'com',
    'não',
    'você',
    'que',
    'do',
    'da',
    'obrigado',
    'por',
  ],
  it: [
    'il',
    'lo',
    'gli',
    'e',
    'è',
    'una',
    'per',
    'con',
    'che',
    'non',
    'di',
    'del',
    'della',
    'grazie',
    'puoi',
  ],
  nl: ['de', 'het', 'een', 'en', 'is', 'niet', 'ik', 'je', 'van', 'voor', 'met', 'wat', 'hoe', 'alsjeblieft'],
  tr: ['bir', 've', 'bu', 'için', 'ile', 'ne', 'nasıl', 'lütfen', 'mi', 'mı', 'değil', 'ben', 'sen'],
};

function latinLanguage(words: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = 0;
  for (const [lang, list] of Object.entries(LATIN_WORDS)) {
    const score = words.filter((w) => list.includes(w)).length;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best;
}

function primary(tag: string): string {
  return (tag.split(/[-_]/)[0] ?? tag).toLowerCase() || 'en';
}

/** TURN-07: the language to answer `message` in. `uiLanguage` is a BCP 47 tag such as "ja-JP". */
export function detectReplyLanguage(message: string, uiLanguage: string): ReplyLanguage {
  const ui = primary(uiLanguage);
  const prose = proseOf(message);
  let bestScript: string | null = null;
  let bestCount = 0;
  let kana = 0;
  for (const [re, lang] of SCRIPTS) {
    const count = prose.match(re)?.length ?? 0;
    if (lang === 'ja') kana = count;
    if (count > bestCount) {
      bestScript = lang;
      bestCount = count;
    }
  }
  // Kanji-heavy Japanese still carries kana; Han without kana stays Chinese.
  if (bestScript === 'zh' && kana > 0) bestScript = 'ja';
  const latinWords = (prose.toLowerCase().match(/[\p{Script=Latin}']+/gu) ?? []).filter((w) => w.length > 0);
  const latinLetters = latinWords.join('').length;
  if (bestScript && bestCount >= latinLetters / 4) return { language: bestScript, source: 'message' };
  if (latinWords.length === 0) return { language: ui, source: 'ui' };
  const latin = latinLanguage(latinWords);
  if (latin) return { language: latin, source: 'message' };
  // Latin words no list knows (a name, a single word): the UI language if it is written in Latin
  // script, else English, the most likely language of an unknown Latin-script message.
  return { language: ui in LATIN_WORDS ? ui : 'en', source: 'message' };
}

/**
 * The reference-block line for TURN-07, or null when the message is plain prose (the model follows
 * it unaided). Stated when detection had to look past paths/URLs/code, or fell back to the UI.
 */
export function replyLanguageLine(message: string, uiLanguage: string): string | null {
  const detected = detectReplyLanguage(message, uiLanguage);
  if (detected.source === 'ui')
    return `Reply language: ${detected.language} (the message has no words; the app's language)`;
  const hadNonProse =
    proseOf(message).replace(/\s+/g, ' ').trim() !==
    message
      .replace(/[\d_]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  return hadNonProse
    ? `Reply language: ${detected.language} (the language of the user's latest message; paths, URLs and code do not count)`
    : null;
}
