/**
 * The parsers compared, each behind the same small function: taoloop's `parseTurn` and the output parser
 * of LangChain.js's `createReactAgent`.
 *
 * @module
 */
import { LABEL_SETS, type LabelLanguage, mergeLabels } from '../../src/react/labels.js';
import { parseTurn } from '../../src/react/parse.js';
import { importPeer, peerVersion } from '../lib/peer.js';
import type { Case } from './cases.js';

/** What a parser made of a turn, in the bench's terms. */
export type Parsed =
  | { type: 'action'; tool: string; input: string }
  | { type: 'answer'; text: string }
  | { type: 'none'; why: string };

export interface Parser {
  name: string;
  parse(turn: Case): Promise<Parsed>;
}

function labelsFor(language: string | undefined) {
  if (language === undefined || language === 'en') return undefined;
  const set = LABEL_SETS[language as LabelLanguage];
  if (!set) throw new Error(`corpus: unknown language ${language}`);
  return mergeLabels(set);
}

export const taoloop: Parser = {
  name: 'taoloop',
  async parse(turn) {
    const labels = labelsFor(turn.language);
    const parsed = parseTurn(turn.text, { tools: turn.tools, ...(labels ? { labels } : {}) });
    switch (parsed.type) {
      case 'action':
        return { type: 'action', tool: parsed.tool, input: parsed.input };
      case 'answer':
        return { type: 'answer', text: parsed.text };
      case 'none':
        return { type: 'none', why: parsed.kind };
      default:
        return parsed satisfies never;
    }
  },
};

/** The members of LangChain's parser and its result that the bench uses. */
interface LangChainParser {
  parse(
    text: string,
  ): Promise<
    { tool: string; toolInput: string | Record<string, unknown> } | { returnValues: { output?: unknown } }
  >;
}
type ParserClass = new (fields: { toolNames: string[] }) => LangChainParser;
type ExceptionClass = new (...args: never[]) => Error;

/**
 * LangChain.js's `ReActSingleInputOutputParser`, the parser `createReactAgent` (langchain/agents) puts at the
 * end of its chain. `AgentAction` → action, `AgentFinish` → answer, `OutputParserException` → none.
 */
export async function loadLangChain(): Promise<Parser> {
  const parserModule = (await importPeer('langchain/agents/react/output_parser')) as {
    ReActSingleInputOutputParser: ParserClass;
  };
  const coreModule = (await importPeer('@langchain/core/output_parsers')) as {
    OutputParserException: ExceptionClass;
  };
  const { ReActSingleInputOutputParser } = parserModule;
  const { OutputParserException } = coreModule;
  return {
    name: `LangChain.js ${peerVersion('langchain')}`,
    async parse(turn) {
      const parser = new ReActSingleInputOutputParser({ toolNames: turn.tools });
      try {
        const result = await parser.parse(turn.text);
        if ('tool' in result) {
          const input =
            typeof result.toolInput === 'string' ? result.toolInput : JSON.stringify(result.toolInput);
          return { type: 'action', tool: result.tool, input };
        }
        return { type: 'answer', text: String(result.returnValues.output) };
      } catch (error) {
        if (error instanceof OutputParserException) return { type: 'none', why: 'OutputParserException' };
        throw error;
      }
    },
  };
}
