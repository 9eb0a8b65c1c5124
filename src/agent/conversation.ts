/**
 * Conversations: a run takes the chat so far (`messages`) instead of one `question`, and returns it with
 * this run's answer added. Earlier turns reach the model as chat messages before the current question,
 * not as steps of the current trajectory; earlier trajectories are dropped unless asked for as a summary.
 *
 * @module
 */
import type { ModelMessage } from '../models/types.js';
import { type LabelSet, primaryLabels } from '../react/labels.js';
import { AgentConfigError } from './errors.js';
import type { AgentMessage, AgentMessagePart, Step } from './types.js';

export type { AgentMessage, AgentMessagePart } from './types.js';

/** A conversation turn reduced to what the model is sent. */
export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
  trajectory?: string;
}

/** The current question and the turns before it. */
export interface Conversation {
  question: string;
  earlier: ConversationTurn[];
}

/**
 * Reads `question` or `messages` (exactly one of them) into the current question and the earlier turns.
 *
 * @throws {AgentConfigError} when both or neither are given, a message has no text, a user message has a
 * part that is not text (an image), a message has a role other than user, assistant or tool, or the last
 * user or assistant message is not the user's.
 */
export function readConversation(options: {
  question?: string | undefined;
  messages?: readonly AgentMessage[] | undefined;
}): Conversation {
  const { question, messages } = options;
  if (question !== undefined && messages !== undefined) {
    throw new AgentConfigError('Pass either `question` or `messages`, not both.');
  }
  if (messages === undefined) {
    if (typeof question !== 'string' || !question.trim())
      throw new AgentConfigError('The question is empty: pass the question or task to answer.');
    return { question, earlier: [] };
  }
  if (!Array.isArray(messages)) throw new AgentConfigError('`messages` must be an array of messages.');
  const turns: ConversationTurn[] = [];
  messages.forEach((message, i) => {
    const turn = readMessage(message, i);
    if (turn) turns.push(turn);
  });
  const last = turns.pop();
  if (last?.role !== 'user') {
    throw new AgentConfigError(
      'The last message must be the user\'s question: add { role: "user", content: "..." } to `messages`.',
    );
  }
  return { question: last.text, earlier: turns };
}

function readMessage(message: AgentMessage, index: number): ConversationTurn | undefined {
  const role = (message as { role?: unknown } | null)?.role;
  if (role === 'tool') return undefined;
  if (role === 'system') {
    throw new AgentConfigError(
      `messages[${index}] is a system message: pass system instructions as \`instructions\`.`,
    );
  }
  if (role !== 'user' && role !== 'assistant') {
    throw new AgentConfigError(
      `messages[${index}] has role ${JSON.stringify(role)}: use "user" or "assistant" (or "tool", which is skipped).`,
    );
  }
  const { content } = message as { content: unknown };
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) text = partsText(content as AgentMessagePart[], role, index);
  else throw new AgentConfigError(`messages[${index}] has no content: give it text.`);
  if (!text.trim()) {
    // An assistant message with only tool calls is part of an earlier trajectory.
    if (role === 'assistant') return undefined;
    throw new AgentConfigError(`messages[${index}] (user) is empty: give it text.`);
  }
  const turn: ConversationTurn = { role, text };
  const { trajectory } = message as { trajectory?: unknown };
  if (typeof trajectory === 'string' && trajectory) turn.trajectory = trajectory;
  return turn;
}

/** The text parts joined; a user's non-text part is an error (it cannot be dropped unseen). */
function partsText(parts: readonly AgentMessagePart[], role: 'user' | 'assistant', index: number): string {
  const texts: string[] = [];
  for (const part of parts) {
    if (part?.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (role === 'user') {
      throw new AgentConfigError(
        `messages[${index}] (user) has a ${JSON.stringify(part?.type)} part: taoloop conversations carry text only.`,
      );
    }
  }
  return texts.join('\n');
}

/**
 * The earlier turns as chat messages in the protocol's words: each user turn as `Question: ...`, each
 * assistant turn as `Answer: ...`, preceded by its trajectory summary when `withTrajectories` is set.
 */
export function earlierMessages(
  earlier: readonly ConversationTurn[],
  labels: LabelSet,
  withTrajectories: boolean,
): ModelMessage[] {
  const l = primaryLabels(labels);
  return earlier.map((turn) => {
    if (turn.role === 'user') return { role: 'user', content: `${l.question}: ${turn.text}` };
    const steps = withTrajectories && turn.trajectory ? `${turn.trajectory}\n` : '';
    return { role: 'assistant', content: `${steps}${l.answer}: ${turn.text}` };
  });
}

/** Longest observation kept per action in a trajectory summary, in characters. */
const SUMMARY_OBSERVATION_CHARS = 300;

/**
 * A short summary of a trajectory's actions: `Earlier steps: tool[input] gave <observation>; ...`, each
 * observation cut to 300 characters. Empty when no action ran.
 */
export function summarizeTrajectory(steps: readonly Step[]): string {
  const actions: string[] = [];
  for (const step of steps) {
    if (step.turn.type !== 'action' || !step.observation) continue;
    const observation = step.observation.text.replace(/\s+/g, ' ').trim();
    const cut =
      observation.length > SUMMARY_OBSERVATION_CHARS
        ? `${observation.slice(0, SUMMARY_OBSERVATION_CHARS)}...`
        : observation;
    actions.push(`${step.turn.tool}[${step.turn.input}] gave ${cut}`);
  }
  return actions.length ? `(Earlier steps: ${actions.join('; ')})` : '';
}

/**
 * The conversation after a run: the input (`messages`, or the question as a user message) plus the
 * answer as an assistant message when there is one.
 */
export function conversationAfter(
  input: { question?: string | undefined; messages?: readonly AgentMessage[] | undefined },
  answer: string | undefined,
  trajectory: string | undefined,
): AgentMessage[] {
  const messages: AgentMessage[] = input.messages
    ? [...input.messages]
    : [{ role: 'user', content: input.question ?? '' }];
  if (answer === undefined) return messages;
  const reply: AgentMessage = { role: 'assistant', content: answer };
  if (trajectory) reply.trajectory = trajectory;
  messages.push(reply);
  return messages;
}

/** The text of a message (text parts joined), for display and stores. */
export function messageText(message: AgentMessage): string {
  if (message.role === 'tool') return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []))
    .join('\n');
}
