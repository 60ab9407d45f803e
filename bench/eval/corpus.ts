import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a corpus folder keeps its parts. Two layouts are read, the development corpus's
 * (`records/eval-projects.raw.jsonl`, `qa-dev.jsonl`, `qa-dev-unanswerable.jsonl`) and the validation corpus's
 * (`records.raw.jsonl`, `qa-validation.jsonl`, `qa-validation-unanswerable.jsonl`); both serve `pdf/` under `{BASE}/pdf/`.
 */
export interface CorpusLayout {
  dir: string;
  /** The folder's name: keys the cached index, so each corpus has its own. */
  name: string;
  records: string;
  pdfDir: string;
  /** The answerable questions (`qa-*.jsonl`, not `*-unanswerable.jsonl`). */
  questions: string;
  /** The unanswerable questions, when the folder has them. */
  unanswerable: string | undefined;
}

export function corpusLayout(dir: string): CorpusLayout {
  const abs = path.resolve(dir);
  const records = [path.join(abs, 'records.raw.jsonl'), path.join(abs, 'records', 'eval-projects.raw.jsonl')].find((f) => existsSync(f));
  if (!records) throw new Error(`${abs}: no records.raw.jsonl or records/eval-projects.raw.jsonl`);
  const qa = readdirSync(abs)
    .filter((f) => /^qa-.*\.jsonl$/.test(f))
    .sort();
  const questions = qa.filter((f) => !f.endsWith('-unanswerable.jsonl'));
  if (questions.length !== 1) throw new Error(`${abs}: expected one qa-*.jsonl question file, found ${questions.length} (pass --qa)`);
  const unanswerable = qa.find((f) => f.endsWith('-unanswerable.jsonl'));
  return {
    dir: abs,
    name: path.basename(abs),
    records,
    pdfDir: path.join(abs, 'pdf'),
    questions: path.join(abs, questions[0] ?? ''),
    unanswerable: unanswerable ? path.join(abs, unanswerable) : undefined,
  };
}
