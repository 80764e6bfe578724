import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './cli-errors';
import { batchItems, parseJsonl, readImportSource, titleFor } from './import-items';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'memories-import-'));
}

describe('import: folder of .txt/.md files', () => {
  it('takes .txt and .md files in name order; titles from the file name or the first # heading', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'b-note.txt'), 'plain body');
    writeFileSync(join(dir, 'a.md'), 'intro\n# The Heading\nmore\n');
    writeFileSync(join(dir, 'c.md'), '## not a title\nbody\n');
    writeFileSync(join(dir, 'skip.json'), '{}');
    mkdirSync(join(dir, 'sub.md'));
    expect(readImportSource(dir)).toEqual([
      { title: 'The Heading', body: 'intro\n# The Heading\nmore\n' },
      { title: 'b-note', body: 'plain body' },
      { title: 'c', body: '## not a title\nbody\n' },
    ]);
  });

  it('titleFor uses the heading only for Markdown', () => {
    expect(titleFor('x.txt', '# Heading')).toBe('x');
    expect(titleFor('x.md', '#   \n')).toBe('x');
    expect(titleFor('notes.v2.MD', '# Big\r\n')).toBe('Big');
  });

  it('rejects an empty folder, non-UTF-8 files and unsupported paths', () => {
    const empty = tempDir();
    expect(() => readImportSource(empty)).toThrow(/nothing to import/);
    const bad = tempDir();
    writeFileSync(join(bad, 'x.txt'), Buffer.from([0xff, 0xfe, 0x00]));
    expect(() => readImportSource(bad)).toThrow(/not valid UTF-8/);
    writeFileSync(join(bad, 'data.csv'), 'a,b');
    expect(() => readImportSource(join(bad, 'data.csv'))).toThrow(/neither a folder nor a \.jsonl/);
    expect(() => readImportSource(join(bad, 'missing'))).toThrow(/ENOENT/);
  });
});

describe('import: strict JSONL', () => {
  it('parses {"title","body"} lines, with or without a final newline or CRLF', () => {
    expect(parseJsonl('{"title":"a","body":"1"}\r\n{"body":"2","title":"b"}', 'f')).toEqual([
      { title: 'a', body: '1' },
      { title: 'b', body: '2' },
    ]);
    const dir = tempDir();
    writeFileSync(join(dir, 'x.jsonl'), '{"title":"a","body":"1"}\n');
    expect(readImportSource(join(dir, 'x.jsonl'))).toEqual([{ title: 'a', body: '1' }]);
  });

  it.each([
    ['{"title":"a","body":"1"}\n{"title":"b","body":"2","extra":1}\n', /f:2: unknown key\(s\) extra/],
    ['{"title":"a","body":"1"}\nnot json\n', /f:2: not a JSON object/],
    ['[1,2]\n', /f:1: not a JSON object/],
    ['{"title":"a"}\n', /f:1: "body" must be a string/],
    ['{"title":1,"body":"x"}\n', /f:1: "title" must be a string/],
    ['{"title":"a","body":"1"}\n\n{"title":"a","body":"1"}\n', /f:2: not a JSON object/],
    [`{"title":"${'t'.repeat(1025)}","body":"1"}\n`, /f:1: title longer than 1024/],
  ])('rejects %j with the line number', (text, message) => {
    expect(() => parseJsonl(text, 'f')).toThrow(UsageError);
    expect(() => parseJsonl(text, 'f')).toThrow(message);
  });
});

describe('import: batching (≤ 500 items, ≤ 8 MiB)', () => {
  it('splits by item count', () => {
    const items = Array.from({ length: 1001 }, (_, i) => ({ title: `${i}`, body: '' }));
    expect(batchItems(items).map((b) => b.length)).toEqual([500, 500, 1]);
  });

  it('splits by encoded size and keeps order', () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const items = [1, 2, 3, 4].map((i) => ({ title: `${i}`, body: big }));
    const batches = batchItems(items);
    expect(batches.map((b) => b.length)).toEqual([2, 2]);
    expect(batches.flat().map((i) => i.title)).toEqual(['1', '2', '3', '4']);
    for (const batch of batches) {
      expect(Buffer.byteLength(JSON.stringify(batch))).toBeLessThanOrEqual(8 * 1024 * 1024);
    }
  });

  it('counts UTF-8 bytes, not characters', () => {
    const items = [1, 2, 3].map((i) => ({ title: `${i}`, body: 'é'.repeat(5) }));
    expect(batchItems(items, 500, 40).map((b) => b.length)).toEqual([1, 1, 1]);
    expect(batchItems([], 500)).toEqual([]);
  });
});
