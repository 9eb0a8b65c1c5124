/**
 * A step's inspector: what the model call was sent (system prompt, messages, stop sequences), the raw
 * reply beside the parsed turn, what was dropped, and a tool's full output. Each text is a box that
 * scrolls when long, so each can be reached with the keyboard (Tab, then the arrow keys) and is named.
 */
export function createInspector({ state, el }) {
  /** Fills the inspector of a finished step. */
  function fill(g, step) {
    const body = el('div', 'inspect-body');
    const at = step.index;
    if (g.request) showRequest(body, g.request, at);
    else
      section(body, 'Request', 'Not recorded for this run (traces from before this playground version).', at);
    const pair = el('div', 'inspect-pair');
    section(pair, 'Raw model text', step.modelText ?? g.text, at);
    section(pair, 'Parsed turn', JSON.stringify(step.turn, null, 2), at);
    body.append(pair);
    section(
      body,
      'Dropped',
      dropped(g, step).join('\n\n') || 'Nothing: the whole reply was used.',
      at,
      'dropped-part',
    );
    if (step.observation?.fullText !== undefined)
      section(body, 'Full tool output (the model saw a shortened one)', step.observation.fullText, at);
    g.inspector.querySelector('.inspect-body')?.remove();
    g.inspector.append(body);
    g.inspector.hidden = false;
  }

  /** The request: system prompt, the other messages, stop sequences. */
  function showRequest(body, request, at) {
    const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
    section(body, 'System prompt', system.join('\n\n') || state.run.systemPrompt || '(none)', at);
    const rest = request.messages.filter((m) => m.role !== 'system');
    const list = el('ol', 'messages');
    rest.forEach((message, n) => {
      const item = el('li', `message ${message.role}`);
      const who = message.role === 'tool' ? `tool (${message.toolName})` : message.role;
      const name = `Message ${n + 1} of ${rest.length} sent in step ${at}: ${who}`;
      item.append(el('span', 'role', who), textBox(message.content, name));
      list.append(item);
    });
    const part = el('section', 'inspect-part');
    part.append(el('h4', undefined, `Messages sent (${rest.length}, after the system prompt)`), list);
    body.append(part);
    section(
      body,
      'Stop sequences',
      request.stopSequences?.length
        ? request.stopSequences.map((s) => JSON.stringify(s)).join('  ')
        : '(none)',
      at,
    );
  }

  /** What of the reply was not used, each with a line saying what it was. */
  function dropped(g, step) {
    const texts = [];
    if (
      step.transcriptText !== undefined &&
      step.modelText !== undefined &&
      step.transcriptText !== step.modelText
    )
      texts.push(`Kept in the transcript:\n${step.transcriptText}`);
    if (g.dropped) texts.push(`Invented observation (cut):\n${g.dropped}`);
    if (step.turn?.trailingText) texts.push(`After the action (ignored):\n${step.turn.trailingText}`);
    if (step.turn?.ignoredText) texts.push(`Ignored:\n${step.turn.ignoredText}`);
    if (step.turn?.ignoredActions?.length)
      texts.push(`Actions not run:\n${step.turn.ignoredActions.join('\n')}`);
    return texts;
  }

  /** A titled, preformatted section of the inspector of step `at`. */
  function section(parent, title, text, at, className) {
    const part = el('section', `inspect-part${className ? ` ${className}` : ''}`);
    part.append(el('h4', undefined, title), textBox(text, `${title}, step ${at}`));
    parent.append(part);
    return part;
  }

  /** A preformatted text that scrolls when long: focusable (Tab, then the arrow keys scroll it) and named. */
  function textBox(text, name) {
    const box = el('pre', undefined, text);
    box.tabIndex = 0;
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', name);
    return box;
  }

  return { fill };
}
