import { readdirSync, statSync } from 'node:fs';
import { extname, join, basename } from 'node:path';
import { MAX_BODY_BYTES, MAX_IMPORT_ITEMS, MAX_TITLE_CHARS } from '@arslan/protocol';
import { UsageError } from './cli-errors';
import { readTextFile } from './read-text-file';

export interface ImportItem {
  title: string;
  body: string;
}

/** Batch limits for the `import` op: at most 500 items and 8 MiB of encoded items per request. */
export const IMPORT_BATCH_ITEMS = Math.min(500, MAX_IMPORT_ITEMS);
export const IMPORT_BATCH_BYTES = 8 * 1024 * 1024;

const encoder = new TextEncoder();
const FOLDER_EXTENSIONS = ['.txt', '.md'];

/** A folder of .txt/.md files or a .jsonl file; everything is parsed and checked before sending. */
export function readImportSource(path: string): ImportItem[] {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (error) {
    throw new UsageError(`import: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const items = isDirectory
    ? readFolder(path)
    : extname(path).toLowerCase() === '.jsonl'
      ? parseJsonl(readUtf8(path), path)
      : unsupported(path);
  if (items.length === 0) throw new UsageError(`import: ${path} holds nothing to import`);
  return items;
}

function unsupported(path: string): never {
  throw new UsageError(`import: ${path} is neither a folder nor a .jsonl file`);
}

function readFolder(dir: string): ImportItem[] {
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && FOLDER_EXTENSIONS.includes(extname(entry.name).toLowerCase()))
    .map((entry) => entry.name)
    .sort();
  return names.map((name) => {
    const body = readUtf8(join(dir, name));
    const title = titleFor(name, body);
    checkItem({ title, body }, name);
    return { title, body };
  });
}

/** File name without extension, or for Markdown the first `# ` heading. */
export function titleFor(fileName: string, body: string): string {
  const stem = basename(fileName, extname(fileName));
  if (extname(fileName).toLowerCase() !== '.md') return stem;
  const heading = body.split(/\r?\n/).find((line) => line.startsWith('# '));
  const text = heading?.slice(2).trim();
  return text ? text : stem;
}

/** Strict JSONL: each line is exactly {"title": string, "body": string}; errors name the line. */
export function parseJsonl(text: string, source: string): ImportItem[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((raw, index) => {
    const where = `${source}:${index + 1}`;
    const line = raw.replace(/\r$/, '');
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`import: ${where}: not a JSON object`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError(`import: ${where}: not a JSON object`);
    }
    const unknown = Object.keys(value).filter((key) => key !== 'title' && key !== 'body');
    if (unknown.length > 0) throw new UsageError(`import: ${where}: unknown key(s) ${unknown.join(', ')}`);
    const { title, body } = value as Record<string, unknown>;
    if (typeof title !== 'string') throw new UsageError(`import: ${where}: "title" must be a string`);
    if (typeof body !== 'string') throw new UsageError(`import: ${where}: "body" must be a string`);
    checkItem({ title, body }, where);
    return { title, body };
  });
}

function checkItem(item: ImportItem, where: string): void {
  if (item.title.length > MAX_TITLE_CHARS) {
    throw new UsageError(`import: ${where}: title longer than ${MAX_TITLE_CHARS} characters`);
  }
  if (encoder.encode(item.body).length > MAX_BODY_BYTES) {
    throw new UsageError(`import: ${where}: body larger than ${MAX_BODY_BYTES} bytes`);
  }
}

function readUtf8(path: string): string {
  return readTextFile(path, `import: ${path}`);
}

/** Splits items into request batches of ≤ IMPORT_BATCH_ITEMS items and ≤ IMPORT_BATCH_BYTES of JSON. */
export function batchItems(
  items: readonly ImportItem[],
  maxItems = IMPORT_BATCH_ITEMS,
  maxBytes = IMPORT_BATCH_BYTES,
): ImportItem[][] {
  const batches: ImportItem[][] = [];
  let current: ImportItem[] = [];
  let bytes = 2;
  for (const item of items) {
    const size = encoder.encode(JSON.stringify(item)).length + 1;
    if (current.length > 0 && (current.length >= maxItems || bytes + size > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 2;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
