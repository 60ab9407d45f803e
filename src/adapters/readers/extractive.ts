import { readExtractively } from '../../domain/answer/read.js';
import { ANSWER_TUNING, type AnswerTuning } from '../../domain/answer/tuning.js';
import type { Reader } from '../../ports/reader.js';

/** The default reader: BM25 over the passages' sentences (domain/answer/read.ts), in process, no model. */
export function createExtractiveReader(tuning: AnswerTuning = ANSWER_TUNING): Reader {
  return {
    id: 'extractive',
    async read(request) {
      return readExtractively(request.question, request.passages, { scope: request.scope, tuning });
    },
  };
}
