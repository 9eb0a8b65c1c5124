/** The past runs list: each run links to its address; the run on screen is marked. */
export function createRunsList({ ui, el, api, state, openRun }) {
  async function load() {
    try {
      const { runs } = await api('/api/runs');
      const items = runs.map(pastRun);
      ui.runs.replaceChildren(...(items.length ? items : [el('li', 'meta', 'No runs yet.')]));
      markCurrent();
    } catch (error) {
      ui.runs.replaceChildren(el('li', 'meta', `Could not list past runs: ${error.message}`));
    }
  }

  /**
   * One run of the list: its question as a link to its address, then when, model (named as the picker
   * names it), status and size.
   */
  function pastRun(past) {
    const item = el('li');
    item.dataset.id = past.id;
    const open = el('a', 'run-link', past.question || `(${past.status} trace ${past.id})`);
    open.href = `${window.location.search}#/runs/${past.id}`;
    // The run already on screen is shown again from the start (the address does not change).
    open.addEventListener('click', (event) => {
      if (window.location.hash !== `#/runs/${past.id}`) return;
      event.preventDefault();
      openRun(past.id);
    });
    const when = new Date(past.startedAt).toLocaleString('en');
    const tokens = past.tokens === undefined ? '' : ` · ${past.tokens.toLocaleString('en')} tokens`;
    const turns = past.steps === 1 ? '1 turn' : `${past.steps} turns`;
    item.append(
      open,
      el('span', 'meta', `${when} · ${past.modelLabel || past.modelId} · ${past.status} · ${turns}${tokens}`),
    );
    return item;
  }

  /** Marks the run on screen in the past runs list. */
  function markCurrent() {
    for (const item of ui.runs.querySelectorAll('li[data-id]'))
      item.setAttribute('aria-current', String(item.dataset.id === state.run.id));
  }

  return { load, markCurrent };
}
