/**
 * The one episode every framework runs: 7 actions of a no-op tool, then an answer, each model turn written
 * in that framework's own ReAct format. Every action has a different input, so no framework sees a
 * repeated action.
 *
 * @module
 */

/** Tool calls per episode. */
export const ACTIONS = 7;
/** Model turns per episode: the actions, then the answer. */
export const STEPS = ACTIONS + 1;
export const QUESTION = 'Call the noop tool seven times, then say you are done.';
export const ANSWER = 'done after 7 noop calls';
export const TOOL_NAME = 'noop';
export const TOOL_DESCRIPTION = 'Does nothing; returns a fixed word.';
/** What the no-op tool returns; also counted by the stateless fakes of the memory test. */
export const TOOL_OUTPUT = 'noop-ok';

const inputOf = (i: number) => `step ${i + 1}`;
const actions = Array.from({ length: ACTIONS }, (_, i) => i);

/** taoloop's format: `Action: tool[input]`, then `Answer:`. */
export const TAOLOOP_TURNS: readonly string[] = [
  ...actions.map((i) => `Thought: I call noop, step ${i + 1} of 7.\nAction: noop[${inputOf(i)}]`),
  `Thought: I called noop seven times.\nAnswer: ${ANSWER}`,
];

/**
 * LangChain's `createReactAgent` format (the hwchase17/react prompt): the prompt ends in `Thought:`, so a
 * turn continues it; `Action:` + `Action Input:`, then `Final Answer:`.
 */
export const LANGCHAIN_TURNS: readonly string[] = [
  ...actions.map(
    (i) => ` I call noop, step ${i + 1} of 7.\nAction: ${TOOL_NAME}\nAction Input: ${inputOf(i)}`,
  ),
  ` I called noop seven times.\nFinal Answer: ${ANSWER}`,
];

/**
 * LlamaIndex.TS `ReActAgent`'s format (its system header): `Action:` + `Action Input:` holding a JSON
 * object of the tool's arguments, then `Answer:`.
 */
export const LLAMAINDEX_TURNS: readonly string[] = [
  ...actions.map(
    (i) =>
      `Thought: I call noop, step ${i + 1} of 7.\nAction: ${TOOL_NAME}\nAction Input: {"input": "${inputOf(i)}"}`,
  ),
  `Thought: I called noop seven times.\nAnswer: ${ANSWER}`,
];

/** The hwchase17/react prompt that LangChain's `createReactAgent` docs pull from the hub, kept locally. */
export const LANGCHAIN_REACT_PROMPT = `Answer the following questions as best you can. You have access to the following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: {input}
Thought:{agent_scratchpad}`;

/** Occurrences of {@link TOOL_OUTPUT} in a prompt: the steps done so far, for the stateless fakes. */
export function stepsDone(prompt: string): number {
  let count = 0;
  for (let at = prompt.indexOf(TOOL_OUTPUT); at !== -1; at = prompt.indexOf(TOOL_OUTPUT, at + 1)) count++;
  return count;
}

/** The input of the action at which the memory test holds every run (the 4th of 7). */
export const HOLD_INPUT = inputOf(3);
