/**
 * The result of parsing one model turn.
 *
 * @module
 */

/** Why a turn could not be used. Each kind maps to a recovery hint for the model. */
export type FormatProblemKind =
  | 'empty'
  | 'no-labels'
  | 'no-action'
  | 'action-and-answer'
  | 'empty-action'
  | 'placeholder-answer'
  | 'unknown-syntax'
  | 'truncated'
  | 'reasoning-cut'
  | 'only-reasoning';

/** Fields every parsed turn may carry. */
interface TurnBase {
  /** The text after the Thought label (or prose before the action), trimmed. */
  thought?: string;
  /** True when the model wrote its own `Observation:` and everything from there was dropped. */
  inventedObservation?: boolean;
}

/** The model asked for a tool. `tool` is the canonical tool name when the parser was given the tool list. */
export interface ActionTurn extends TurnBase {
  type: 'action';
  tool: string;
  input: string;
  /** Text found after the closing bracket on the action line; reported, never merged into the input. */
  trailingText?: string;
  /**
   * Everything the turn holds after its action (text after the bracket, more actions, a new thought),
   * trimmed. Only the first action of a turn runs; the loop tells the model what was ignored.
   */
  ignoredText?: string;
  /** The later actions among {@link ignoredText}, as written (`search[b]`), in order. */
  ignoredActions?: string[];
}

/** The model gave its final answer (`Answer: ...`, `Final Answer: ...` or `finish[...]`). */
export interface AnswerTurn extends TurnBase {
  type: 'answer';
  text: string;
}

/** The turn could not be used; `problem` is written for the model and says how to recover. */
export interface NoneTurn extends TurnBase {
  type: 'none';
  kind: FormatProblemKind;
  problem: string;
}

/** One parsed model turn: a discriminated union on `type`. */
export type Turn = ActionTurn | AnswerTurn | NoneTurn;
