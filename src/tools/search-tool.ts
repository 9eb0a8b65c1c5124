/**
 * The `search` tool over documents held in memory: keyword (BM25) search with no file system, so it runs
 * in browsers and edge runtimes. `taoloop/node`'s `createSearchTool` also reads a folder (`docsDir`).
 *
 * @module
 */

import { DocumentIndex, type SourceDocument } from './search-index.js';
import type { Tool } from './types.js';

/** What the search tool answers when no passage matches. */
export const NO_MATCH = 'No matching document.';

/** Documents to search: `{ id, text }` items, or a record of text by id (`{ 'refunds.md': '...' }`). */
export type SearchDocuments = readonly SourceDocument[] | Readonly<Record<string, string>>;

/** Options for {@link createSearchTool} (portable): the documents and how many passages to return. */
export interface DocumentSearchToolOptions {
  /** The documents, passed as strings (fetched, bundled, read by the caller). */
  documents: SearchDocuments;
  /** Most passages returned per search. @default 2 */
  topK?: number;
  /** Named in the tool's description: "Searches the documents in <name> ...". @default 'the documents' */
  collectionName?: string;
}

/**
 * Creates the `search` tool over documents passed as strings, indexed once, now. Its observation is the
 * best passages (at most `topK`, weak ones dropped) joined with ` | `, or exactly `No matching document.`.
 * Read-only. Asynchronous only to match `taoloop/node`'s version, which can read a folder.
 *
 * @example
 * ```ts
 * const search = await createSearchTool({ documents: { 'pricing.md': '# Pricing\n\nBrightgrid Pro costs $20 per month.' } });
 * await search.run('Pro price', { signal }); // 'Pricing: Brightgrid Pro costs $20 per month.'
 * ```
 *
 * @throws {TypeError} when `documents` is missing or a text is not a string, or for a `docsDir` (reading
 * a folder needs Node: use `taoloop/node`).
 * @throws {RangeError} when `topK` is not a positive integer.
 */
export async function createSearchTool(options: DocumentSearchToolOptions): Promise<Tool> {
  if ('docsDir' in options) {
    throw new TypeError(
      "docsDir reads a folder and needs Node: import { createSearchTool } from 'taoloop/node', or pass documents.",
    );
  }
  return searchTool(DocumentIndex.fromDocuments(toDocuments(options.documents)), options);
}

/**
 * The `search` tool over an index already built (see {@link createSearchTool}).
 *
 * @throws {RangeError} when `topK` is not a positive integer.
 */
export function searchTool(
  index: DocumentIndex,
  options: { topK?: number; collectionName?: string } = {},
): Tool {
  const topK = options.topK ?? 2;
  if (!Number.isInteger(topK) || topK < 1) {
    throw new RangeError(`topK must be a positive integer, got ${topK}`);
  }
  const name = options.collectionName ?? 'the documents';
  return {
    name: 'search',
    description: `Searches the documents in ${name} and returns the best matching passages. Input: a few keywords.`,
    inputHint: 'keywords',
    effects: 'read',
    run(input) {
      if (input.trim() === '')
        throw new Error('Empty query: write a few keywords, e.g. search[refund policy]');
      const hits = index.search(input, topK);
      return hits.length === 0 ? NO_MATCH : hits.map((hit) => hit.text).join(' | ');
    },
  };
}

/**
 * `documents` as `{ id, text }` items.
 *
 * @throws {TypeError} when it is not an array or a record, or a text is not a string.
 */
export function toDocuments(documents: SearchDocuments | undefined): SourceDocument[] {
  if (documents === null || typeof documents !== 'object') {
    throw new TypeError('documents must be an array of { id, text } or a record of text by id');
  }
  const items: SourceDocument[] = Array.isArray(documents)
    ? [...(documents as readonly SourceDocument[])]
    : Object.entries(documents).map(([id, text]) => ({ id, text }));
  for (const item of items) {
    if (typeof item?.id !== 'string' || typeof item.text !== 'string') {
      throw new TypeError(`each document needs a string id and a string text, got ${JSON.stringify(item)}`);
    }
  }
  return items;
}
