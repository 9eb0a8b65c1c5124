/** The trace's numbered steps, each a group of blocks (Thought, Action, Observation, ...). */
export function createTraceSteps({ ui, state, el, follow }) {
  /** A block (Thought, Action, Observation, ...): `<li>` with a label and an optional text. */
  function block(kind, label, text, step) {
    const item = el('li', `block ${kind}`);
    item.dataset.kind = kind;
    if (step !== undefined) item.dataset.step = String(step);
    item.append(el('span', 'label', label));
    if (text !== undefined && text !== '') item.append(el('div', 'text', text));
    return item;
  }

  /** Appends a block to step `step`'s group, or to the run (no step). */
  function addBlock(kind, label, text, step) {
    const item = block(kind, label, text, step);
    if (step === undefined) ui.trace.append(item);
    else group(step).blocks.append(item);
    follow(item);
    return item;
  }

  /** Step `step`'s group, made on first use: a heading, its figures, its blocks and its inspector. */
  function group(step) {
    const known = state.run.groups.get(step);
    if (known) return known;
    const item = el('li', 'step');
    item.dataset.step = String(step);
    const head = el('div', 'step-head');
    const heading = el('h3', 'step-title', `Step ${step}`);
    const figures = el('p', 'step-figures');
    head.append(heading, figures);
    const blocks = el('ol', 'blocks');
    const inspector = el('details', 'inspector');
    inspector.append(el('summary', undefined, `Inspect step ${step}: what the model was sent and wrote`));
    inspector.hidden = true;
    item.append(head, blocks, inspector);
    ui.trace.append(item);
    const created = { item, head, figures, blocks, inspector, live: undefined, text: '', request: undefined };
    state.run.groups.set(step, created);
    return created;
  }

  return { block, addBlock, group };
}
