/**
 * The text of a model turn as the model writes it (`model-delta`): a Thought, then an Action or Answer,
 * growing; replaced by the parsed turn when it ends, and kept on screen (marked unfinished) when the run
 * stops or fails first.
 */
export function createLiveText({ state, el, follow, steps }) {
  /** Where a live turn's Action or Answer starts (English labels, as the playground uses). */
  const ACTION_LINE =
    /^[ \t>*_#-]*(Action|Answer|Final Answer|FinalAnswer|Final_Answer)\s*(?:\d+\s*)?:[ \t]*/im;
  const THOUGHT_START = /^\s*[>*_#-]*\s*Thought\s*(?:\d+\s*)?:[ \t]*/i;

  /** Splits a turn being written into its Thought and its Action or Answer so far. */
  function splitLive(text) {
    const match = ACTION_LINE.exec(text);
    const head = match ? text.slice(0, match.index) : text;
    const thought = head.replace(THOUGHT_START, '').trim();
    if (!match) return { thought };
    const answer = !/^action$/i.test(match[1]);
    return {
      thought,
      kind: answer ? 'answer' : 'action',
      rest: text.slice(match.index + match[0].length).trim(),
    };
  }

  /** Shows a model turn as it is written: the Thought, then the Action or Answer, growing. */
  function showDelta(message) {
    const g = steps.group(message.step);
    g.text += message.text;
    if (!g.live) {
      const thought = liveBlock(g, 'thought', 'Thought (being written)', message.step);
      g.live = { thought: thought.item, thoughtText: thought.text, rest: undefined, restText: undefined };
    }
    const parts = splitLive(g.text);
    g.live.thoughtText.textContent = parts.thought;
    if (parts.kind && !g.live.rest) {
      const label = parts.kind === 'answer' ? 'Answer (being written)' : 'Action (being written)';
      const rest = liveBlock(g, parts.kind, label, message.step);
      g.live.rest = rest.item;
      g.live.restText = rest.text;
    }
    if (g.live.restText) g.live.restText.textContent = parts.rest ?? '';
    follow(g.live.rest ?? g.live.thought);
  }

  /** A block being written, appended to group `g`: its element and its (growing) text. */
  function liveBlock(g, kind, label, step) {
    const item = steps.block(`${kind} live`, label, undefined, step);
    item.dataset.kind = kind;
    const text = el('div', 'text');
    item.append(text);
    g.blocks.append(item);
    return { item, text };
  }

  /** Replaces the live blocks of a step by nothing (its parsed turn follows). */
  function clearLive(g) {
    g.live?.thought.remove();
    g.live?.rest?.remove();
    g.live = undefined;
  }

  /** After a stop or a failure: the text written so far stays, marked as unfinished. */
  function markUnfinished() {
    for (const g of state.run.groups.values()) {
      if (!g.live) continue;
      for (const item of [g.live.thought, g.live.rest]) {
        if (!item) continue;
        item.classList.remove('live');
        item.classList.add('unfinished');
        const label = item.querySelector('.label');
        label.textContent = label.textContent.replace('(being written)', '(unfinished: the run ended here)');
      }
      g.live = undefined;
    }
  }

  return { showDelta, clearLive, markUnfinished };
}
