/**
 * Generic questions over every project, one answer each (`perProject: true`): what a research team asks of a batch
 * ("Who is the project proponent?", "What methodology does the project apply?", "Where is the project located?"),
 * where the development set asks one project's document for one fact.
 *
 *   npx tsx bench/eval/generic.ts [--embedder use] [--qa bench/eval/qa-generic.jsonl] [--answers]
 *
 * Runs over the index that `npm run eval` cached for the embedder (run that first), in-process with the default
 * search. Each line of the question file gives, per project ("Verra 5533"), the fact its documents state (the
 * proponent's name, the methodology's code, the place, the yearly estimate), read from the documents (bench/README.md
 * "answers", ninth session). A project's answer names it when a piece of the answer states the fact and one of its
 * markers cites a passage of that project that states it too, on any page (bench/eval/answers.ts namesFact). Reports
 * per question and in all: named, answered, and answered without naming it; and how many projects' facts the one
 * answer of the same question without `perProject` names, each cited to a passage of its own project.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSearch } from '../../src/deps.js';
import { namesFact, readGenericQuestions } from './answers.js';
import { arg, flag, openCachedIndex } from './harness.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function main(): Promise<void> {
  const embedder = arg('embedder') ?? 'use';
  const questions = readGenericQuestions(path.resolve(arg('qa') ?? path.join(repoRoot, 'bench/eval/qa-generic.jsonl')));
  const { config, logger, deps } = await openCachedIndex(embedder, 'generic');
  try {
    const { search } = await buildSearch(config, logger, deps, deps.embedder);
    const projects = (await deps.records.list()).map((p) => ({
      ref: { registry: p.registry, projectId: p.projectId },
      requestedRegistry: p.registry,
    }));
    const lines = [
      '| question | projects | named, cited | answered | answered without naming it | one answer over all: named, cited |',
      '|---|---|---|---|---|---|',
    ];
    let total = 0;
    let named = 0;
    let answered = 0;
    let wrong = 0;
    let combined = 0;
    for (const q of questions) {
      const res = await search.search({ projects, query: q.question, perProject: true });
      // The same question without perProject: how many projects' facts its one answer names, each cited to its own.
      const one = await search.search({ projects, query: q.question });
      const c = Object.entries(q.facts).filter(([label, fact]) =>
        namesFact(
          fact,
          one.answer,
          one.citations.filter((x) => `${x.registry} ${x.projectId}` === label),
        ),
      ).length;
      let n = 0;
      let a = 0;
      let w = 0;
      for (const [label, fact] of Object.entries(q.facts)) {
        const state = res.projects.find((p) => `${p.registry} ${p.projectId}` === label);
        if (!state) throw new Error(`${q.id}: no project ${label} among the corpus projects`);
        const own = res.citations.filter((c) => state.citationIds?.includes(c.id));
        const ok = state.answered === true && namesFact(fact, state.answer ?? '', own);
        n += ok ? 1 : 0;
        a += state.answered ? 1 : 0;
        w += state.answered && !ok ? 1 : 0;
        if (flag('answers')) {
          process.stdout.write(`${q.id} ${label} named=${ok} answered=${state.answered}\n  ${(state.answer ?? '').slice(0, 400)}\n`);
        }
      }
      const k = Object.keys(q.facts).length;
      lines.push(`| ${q.question} | ${k} | ${n} | ${a} | ${w} | ${c} |`);
      total += k;
      named += n;
      answered += a;
      wrong += w;
      combined += c;
    }
    lines.push(`| all | ${total} | ${named} | ${answered} | ${wrong} | ${combined} |`);
    process.stdout.write(
      `${embedder}, ${questions.length} generic questions, perProject over ${projects.length} projects\n\n${lines.join('\n')}\n`,
    );
  } finally {
    await deps.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`generic failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
