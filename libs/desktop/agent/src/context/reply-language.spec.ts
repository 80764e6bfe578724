import { buildReferenceBlock, DEFAULT_CONVERSATION_SETTINGS } from './reference-block';
import { detectReplyLanguage, replyLanguageLine } from './reply-language';

describe('TURN-07: reply language follows the latest message', () => {
  it.each([
    ['このファイルを要約してください', 'ja'],
    ['把这个文件总结一下', 'zh'],
    ['이 파일을 요약해 주세요', 'ko'],
    ['Пожалуйста, кратко изложи этот файл', 'ru'],
    ['Please summarise this file for me', 'en'],
    ['Kannst du bitte die Datei zusammenfassen und mir das Ergebnis zeigen', 'de'],
    ["Peux-tu résumer le fichier pour moi s'il te plaît", 'fr'],
    ['¿Puedes resumir el archivo por favor?', 'es'],
  ])('TURN-07: %s → %s', (message, language) => {
    expect(detectReplyLanguage(message, 'en-US')).toEqual({ language, source: 'message' });
  });

  it('TURN-07: paths, URLs and code are ignored when detecting', () => {
    const ja =
      '`/Users/me/Projects/app/src/server.ts` の `handleRequest()` を https://example.com/docs/api.html に合わせて直して';
    expect(detectReplyLanguage(ja, 'en').language).toBe('ja');
    const en = 'Fix this please:\n```ts\nconst 名前 = "値"; // 日本語のコメント\n```\nsee ~/メモ/計画.md';
    expect(detectReplyLanguage(en, 'ja-JP').language).toBe('en');
  });

  it('TURN-07: a message with no words is answered in the UI language', () => {
    for (const message of ['/tmp/report.pdf', 'https://example.com/a', '```\nls -la\n```', '👍', '42', ''])
      expect(detectReplyLanguage(message, 'ja-JP')).toEqual({ language: 'ja', source: 'ui' });
  });

  it('TURN-07: the reference block states the language when the message alone could mislead', () => {
    const block = buildReferenceBlock({
      summary: null,
      plan: null,
      settings: DEFAULT_CONVERSATION_SETTINGS,
      latestUserMessage: '`src/app.ts` を直して',
      uiLanguage: 'en',
    });
    expect(block).toContain('Reply language: ja');
    expect(
      buildReferenceBlock({
        summary: null,
        plan: null,
        settings: DEFAULT_CONVERSATION_SETTINGS,
        latestUserMessage: '~/Downloads/scan.png',
        uiLanguage: 'de-DE',
      }),
    ).toContain("Reply language: de (the message has no words; the app's language)");
    // Plain prose: the model follows it unaided; no extra line.
    expect(replyLanguageLine('Summarise the meeting notes please', 'ja')).toBeNull();
    // An explicit conversation setting (CTX-09) wins.
    expect(
      buildReferenceBlock({
        summary: null,
        plan: null,
        settings: { ...DEFAULT_CONVERSATION_SETTINGS, replyLanguage: 'fr' },
        latestUserMessage: '`a.ts` を直して',
      }),
    ).toContain('Reply language: fr');
  });
});
