/**
 * Child process for the concurrency test: keeps writing chunks of one project into the shared SQLite file (as the
 * ingest worker does) until killed or `rounds` are done. Args: dataDir registry projectId rounds.
 */
import { openSqlite } from '../../../src/adapters/sqlite/database.js';
import { createSqliteVectorIndex } from '../../../src/adapters/sqlite/vector-index.js';
import { createHashEmbedder } from './fixtures.js';

const [dataDir, registry, projectIdText, roundsText] = process.argv.slice(2);
if (!dataDir || !registry || !projectIdText || !roundsText) throw new Error('usage: chunk-writer dataDir registry projectId rounds');
const projectId = Number(projectIdText);
const db = openSqlite({ dataDir });
const embedder = createHashEmbedder();
const index = await createSqliteVectorIndex({ db });
await index.open({ embedderId: embedder.id, dimensions: embedder.dimensions });
const text = 'The crediting period of the project is 20 years from 15/07/2022 to 14/07/2042, crediting period.';
const [vector] = await embedder.embed([text]);
if (!vector) throw new Error('no vector');
for (let round = 0; round < Number(roundsText); round++) {
  const chunks = Array.from({ length: 50 }, (_, i) => ({
    id: `w:${round}:${i}`,
    registry,
    projectId,
    documentId: `doc-${round}`,
    documentTitle: 'intruder.pdf',
    documentType: 'Other',
    uri: 'https://example.org/intruder.pdf',
    page: i + 1,
    offset: 0,
    text,
    vector,
  }));
  await index.upsert(chunks);
  if (round % 2 === 1) await index.deleteDocument({ registry, projectId }, `doc-${round - 1}`);
  process.stdout.write(`round ${round}\n`);
  // Spread the writes over time so the reader's searches interleave with them.
  await new Promise((r) => setTimeout(r, 25));
}
await index.close();
db.close();
