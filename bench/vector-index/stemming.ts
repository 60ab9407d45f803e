/**
 * Does Porter stemming help the full-text side? Indexes every page of the shared corpus's PDFs twice in FTS5
 * (`porter unicode61` as the adapter does, and plain `unicode61`), runs the dev questions (corpus/qa-dev.jsonl)
 * through the adapter's query builder restricted to the question's document, and reports hit@1/3/5 (a gold page
 * among the top k pages) and MRR for both. Whole pages are the unit here, so chunking does not blur the comparison.
 *
 *   npx tsx bench/vector-index/stemming.ts
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { PDFParse } from 'pdf-parse';
import { ftsTextExpression } from '../../src/adapters/sqlite/vector-index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpus = process.env.CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus');

interface Qa {
  id: string;
  question: string;
  file: string;
  pages: number[];
}

async function pagesOf(file: string): Promise<string[]> {
  const parser = new PDFParse({ data: new Uint8Array(readFileSync(file)), verbosity: 0 });
  try {
    const result = await parser.getText({ pageJoiner: '' });
    const pages = new Array<string>(result.total).fill('');
    for (const p of result.pages) pages[p.num - 1] = p.text;
    return pages;
  } finally {
    await parser.destroy();
  }
}

const questions = readFileSync(path.join(corpus, 'qa-dev.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Qa);

const db = new Database(':memory:');
db.exec(`CREATE TABLE pages (rowid INTEGER PRIMARY KEY, file TEXT, page INTEGER);
  CREATE VIRTUAL TABLE fts_porter USING fts5(text, content='', tokenize='porter unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE fts_plain USING fts5(text, content='', tokenize='unicode61 remove_diacritics 2');`);
const addPage = db.prepare('INSERT INTO pages (file, page) VALUES (?, ?)');
const addPorter = db.prepare('INSERT INTO fts_porter (rowid, text) VALUES (?, ?)');
const addPlain = db.prepare('INSERT INTO fts_plain (rowid, text) VALUES (?, ?)');
let pageCount = 0;
for (const name of readdirSync(path.join(corpus, 'pdf')).filter((f) => f.endsWith('.pdf'))) {
  const pages = await pagesOf(path.join(corpus, 'pdf', name));
  db.transaction(() => {
    pages.forEach((text, i) => {
      const { lastInsertRowid } = addPage.run(name, i + 1);
      addPorter.run(lastInsertRowid, text);
      addPlain.run(lastInsertRowid, text);
      pageCount++;
    });
  })();
}

const result: Record<string, { hit1: number; hit3: number; hit5: number; mrr: number }> = {};
for (const table of ['fts_porter', 'fts_plain']) {
  const search = db.prepare<[string, string], { page: number }>(`
    SELECT p.page FROM ${table} JOIN pages p ON p.rowid = ${table}.rowid
    WHERE ${table} MATCH ? AND p.file = ? ORDER BY bm25(${table}) LIMIT 10`);
  let hit1 = 0;
  let hit3 = 0;
  let hit5 = 0;
  let mrr = 0;
  for (const q of questions) {
    const expr = ftsTextExpression(q.question);
    const ranked = expr ? search.all(expr, q.file).map((r) => r.page) : [];
    const rank = ranked.findIndex((p) => q.pages.includes(p));
    if (rank === 0) hit1++;
    if (rank >= 0 && rank < 3) hit3++;
    if (rank >= 0 && rank < 5) hit5++;
    if (rank >= 0) mrr += 1 / (rank + 1);
  }
  const n = questions.length;
  result[table] = { hit1: hit1 / n, hit3: hit3 / n, hit5: hit5 / n, mrr: Number((mrr / n).toFixed(3)) };
}
console.log(JSON.stringify({ pages: pageCount, questions: questions.length, result }, null, 2));
