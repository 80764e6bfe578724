import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import {
  type EnvelopeCrypto,
  type VectorOutcome,
  checkPrimitiveVectorFile,
  checkVectorCase,
  parseVectorFile,
  primitiveVectorKind,
} from '@arslan/envelope';

export interface ConformanceReport {
  passed: number;
  failed: number;
  /** One line per failing case: file, backend, case, reason. */
  failures: string[];
}

function listFiles(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path));
    else out.push(path);
  }
  return out;
}

function outcomesFor(crypto: EnvelopeCrypto, path: string): VectorOutcome[] | undefined {
  const name = basename(path);
  if (name.endsWith('.json')) {
    return parseVectorFile(readFileSync(path, 'utf8')).map((c) => checkVectorCase(crypto, c));
  }
  const kind = primitiveVectorKind(name);
  return kind ? checkPrimitiveVectorFile(crypto, kind, readFileSync(path, 'utf8')) : undefined;
}

/**
 * Runs every vector file under `folder` (envelope JSON files and the published
 * primitive files) against every backend. A file that cannot be parsed counts as
 * one failure, so a broken file can never pass silently.
 */
export function runConformance(folder: string, backends: EnvelopeCrypto[]): ConformanceReport {
  const report: ConformanceReport = { passed: 0, failed: 0, failures: [] };
  const files = listFiles(folder);
  for (const path of files) {
    const shown = relative(process.cwd(), path) || path;
    for (const crypto of backends) {
      let outcomes: VectorOutcome[] | undefined;
      try {
        outcomes = outcomesFor(crypto, path);
      } catch (error) {
        report.failed++;
        report.failures.push(
          `FAIL ${shown} [${crypto.name}] unreadable vector file: ${(error as Error).message}`,
        );
        continue;
      }
      for (const outcome of outcomes ?? []) {
        if (outcome.passed) {
          report.passed++;
        } else {
          report.failed++;
          report.failures.push(`FAIL ${shown} [${crypto.name}] ${outcome.description}: ${outcome.reason}`);
        }
      }
    }
  }
  return report;
}
