import { DownloadError } from '../../src/ports/downloader.js';
import { URI_PLACEHOLDER } from '../records.js';
import type { DocumentWorkItem, Stage } from '../types.js';

/** Stage: fetches the document's bytes; a refused or failed download ends the item with its reason. */
export const download: Stage = async (item: DocumentWorkItem, ctx) => {
  const placeholder = URI_PLACEHOLDER.exec(item.uri)?.[0];
  if (placeholder !== undefined) {
    const fix = placeholder === '{BASE}' ? ': import the records again with --replace-base <url>' : '';
    return {
      ...item,
      outcome: {
        kind: 'failed',
        reason: `download: the uri still holds the placeholder ${placeholder}${fix}`,
        downloadFailure: 'placeholder',
      },
    };
  }
  try {
    const content = await ctx.downloader.download(item.uri, ctx.signal);
    return { ...item, content };
  } catch (err) {
    if (err instanceof DownloadError) {
      return {
        ...item,
        outcome:
          err.outcome === 'skipped'
            ? { kind: 'skipped', reason: err.message }
            : {
                kind: 'failed',
                reason: `download: ${err.message}`,
                downloadFailure: err.kind,
                ...(err.retryable ? { retryable: true } : {}),
              },
      };
    }
    throw err;
  }
};
