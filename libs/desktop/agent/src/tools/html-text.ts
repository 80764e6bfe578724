// Readable text from HTML for web_extract: scripts, styles and markup removed, entities decoded.

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
  trade: '™',
  middot: '·',
  bull: '•',
  deg: '°',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  times: '×',
  divide: '÷',
  shy: '',
  zwnj: '',
  zwj: '',
  thinsp: ' ',
  ensp: ' ',
  emsp: ' ',
  para: '¶',
  sect: '§',
  eacute: 'é',
  egrave: 'è',
  aacute: 'á',
  agrave: 'à',
  ouml: 'ö',
  uuml: 'ü',
  auml: 'ä',
  szlig: 'ß',
  ccedil: 'ç',
  ntilde: 'ñ',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,31});?/gi, (m, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        return '\ufffd';
      return String.fromCodePoint(code);
    }
    const named = NAMED[body.toLowerCase()] ?? NAMED[body];
    return named ?? m;
  });
}

export interface PageText {
  title: string;
  text: string;
}

const BLOCK =
  /<\/?(?:p|div|br|hr|h[1-6]|ul|ol|li|tr|td|th|table|section|article|header|footer|nav|main|aside|blockquote|pre|dd|dt|dl|figure|figcaption|form|fieldset|address|details|summary)\b[^>]*>/gi;

export function htmlToText(html: string): PageText {
  const titleMatch = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  const title = titleMatch
    ? decodeEntities(titleMatch[1]!.replace(/<[^>]*>/g, ''))
        .replace(/\s+/g, ' ')
        .trim()
    : '';
  let s = html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<(script|style|noscript|template|svg|math|iframe|object|head)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(BLOCK, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/<[^>]*$/, ' ');
  s = decodeEntities(s)
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, text: s };
}
