import { SseParser, type SseEvent } from './sse';

const STREAM =
  '\uFEFF: comment\r\nevent: message_start\r\ndata: {"a":1}\r\n\r\n' +
  'data: line one\ndata: line two\n\n' +
  ': keep-alive\r\r' +
  'data:no-space\rid: 7\rretry: 10\r\r' +
  'event: ping\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"a":1}' },
  { event: 'message', data: 'line one\nline two' },
  { event: 'message', data: 'no-space' },
  { event: 'message', data: '[DONE]' },
];

function parseInPieces(pieces: string[]): SseEvent[] {
  const parser = new SseParser();
  return [...pieces.flatMap((piece) => parser.push(piece)), ...parser.end()];
}

describe('SseParser (PROV-01: streams parsed by hand)', () => {
  it('parses CRLF / CR / LF, multi-line data, comments, BOM and events without data', () => {
    expect(parseInPieces([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events for every split point, including between CR and LF', () => {
    for (let i = 0; i <= STREAM.length; i++) {
      expect(parseInPieces([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(EXPECTED);
    }
  });

  it('gives the same events fed one character at a time', () => {
    expect(parseInPieces([...STREAM])).toEqual(EXPECTED);
  });

  it('delivers a final event that lacks its blank line at end of stream', () => {
    expect(parseInPieces(['data: a\n\ndata: tail'])).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'tail' },
    ]);
  });
});
