/**
 * The past runs list: each run links to its address, and the run on screen is marked. The list can be
 * searched (question and answer text) and filtered by status and model (the server filters: `GET
 * /api/runs?q=&status=&model=`); two runs ticked are compared side by side; a run is deleted after a
 * confirmation (its trace file goes from the runs folder; the server refuses a run in progress).
 */
export function createRunsList({ ui, el, api, state, openRun, compare }) {
  /** The runs ticked for comparison, by id (kept while the list is searched, filtered or reloaded). */
  const ticked = new Set();
  /** The run the delete dialog asks about. */
  let deleting;
  let searchTimer;
  /** Each load's number: an older answer that arrives late is dropped. */
  let loads = 0;

  async function load() {
    const load = ++loads;
    const query = new URLSearchParams();
    const text = ui.runsSearch.value.trim();
    if (text) query.set('q', text);
    if (ui.runsStatus.value) query.set('status', ui.runsStatus.value);
    if (ui.runsModel.value) query.set('model', ui.runsModel.value);
    const search = query.toString();
    try {
      const { runs, filters } = await api(`/api/runs${search ? `?${search}` : ''}`);
      if (load !== loads) return;
      if (filters) {
        showChoices(ui.runsStatus, filters.statuses, 'Any status', (s) => s.replace('_', ' '));
        showChoices(ui.runsModel, filters.models, 'Any model', (m) => m);
      }
      const items = runs.map(pastRun);
      const filtered = Boolean(search);
      ui.runs.replaceChildren(
        ...(items.length
          ? items
          : [el('li', 'meta', filtered ? 'No run matches the search and filters.' : 'No runs yet.')]),
      );
      ui.runsCount.textContent = filtered
        ? `${runs.length === 1 ? '1 run matches' : `${runs.length} runs match`}.`
        : '';
      showCompare();
      markCurrent();
    } catch (error) {
      if (load !== loads) return;
      ui.runs.replaceChildren(el('li', 'meta', `Could not list past runs: ${error.message}`));
    }
  }

  /** A filter's choices: "any", then each value there is, the one picked kept even when gone. */
  function showChoices(select, values, any, label) {
    const picked = select.value;
    const all = picked && !values.includes(picked) ? [picked, ...values] : values;
    const none = el('option', undefined, any);
    none.value = '';
    select.replaceChildren(
      none,
      ...all.map((value) => {
        const option = el('option', undefined, label(value));
        option.value = value;
        return option;
      }),
    );
    select.value = picked;
  }

  /**
   * One run of the list: a box to tick it for comparison, its question as a link to its address, then
   * when, model (named as the picker names it), status and size, and a Delete button.
   */
  function pastRun(past) {
    const item = el('li', 'past-run');
    item.dataset.id = past.id;
    const question = past.question || `(${past.status} trace ${past.id})`;
    const box = el('input');
    box.type = 'checkbox';
    box.checked = ticked.has(past.id);
    box.setAttribute('aria-label', `Compare: ${question}`);
    box.addEventListener('change', () => {
      if (box.checked) ticked.add(past.id);
      else ticked.delete(past.id);
      showCompare();
    });
    const open = el('a', 'run-link', question);
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
    const model = past.modelLabel || past.modelId;
    const text = el('div');
    text.append(
      open,
      el('span', 'meta', `${when} · ${model} · ${past.status.replace('_', ' ')} · ${turns}${tokens}`),
    );
    const remove = el('button', 'delete', 'Delete');
    remove.type = 'button';
    remove.setAttribute('aria-label', `Delete: ${question}`);
    remove.disabled = past.status === 'running';
    if (remove.disabled) remove.title = 'A run in progress cannot be deleted: stop it first.';
    remove.addEventListener('click', () => confirmDelete(past, question, `${when} · ${model}`));
    item.append(box, text, remove);
    return item;
  }

  /** The Compare button works with exactly two runs ticked; its help says how many are. */
  function showCompare() {
    ui.compareRuns.disabled = ticked.size !== 2;
    ui.compareRuns.textContent = ticked.size === 2 ? 'Compare the two runs' : 'Compare';
    ui.compareHelp.textContent =
      ticked.size === 2
        ? 'Two runs ticked.'
        : ticked.size < 2
          ? `Tick two runs to compare them side by side (${ticked.size} ticked).`
          : `Tick only two runs to compare them (${ticked.size} ticked).`;
  }

  /** Asks before deleting: the dialog names the run and says that its trace goes for good. */
  function confirmDelete(past, question, what) {
    deleting = past;
    ui.deleteText.textContent = `“${question}” (${what}). Its trace file is removed from the runs folder; this cannot be undone.`;
    ui.deleteError.textContent = '';
    ui.deleteConfirm.disabled = false;
    ui.deleteDialog.showModal();
    ui.deleteCancel.focus();
  }

  async function deleteRun() {
    const past = deleting;
    if (!past) return;
    ui.deleteConfirm.disabled = true;
    try {
      await api(`/api/runs/${encodeURIComponent(past.id)}`, undefined, 'DELETE');
    } catch (error) {
      ui.deleteError.textContent = `Could not delete the run: ${error.message}`;
      ui.deleteConfirm.disabled = false;
      return;
    }
    deleting = undefined;
    ticked.delete(past.id);
    // Focus goes to the next run of the list (or the search) before the dialog gives it back to the gone button.
    const item = ui.runs.querySelector(`li[data-id="${CSS.escape(past.id)}"]`);
    const next =
      item?.nextElementSibling?.querySelector('.run-link') ??
      item?.previousElementSibling?.querySelector('.run-link');
    ui.deleteDialog.close();
    item?.remove();
    (next ?? ui.runsSearch).focus();
    await load();
    ui.runsCount.textContent = `Deleted “${past.question || past.id}”.`;
  }

  /** Marks the run on screen in the past runs list. */
  function markCurrent() {
    for (const item of ui.runs.querySelectorAll('li[data-id]'))
      item.setAttribute('aria-current', String(item.dataset.id === state.run.id));
  }

  /** Wires the search, the filters, Compare and the delete dialog. */
  function listen() {
    ui.runsFilter.addEventListener('submit', (event) => {
      event.preventDefault();
      load();
    });
    ui.runsSearch.addEventListener('input', () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(load, 250);
    });
    ui.runsStatus.addEventListener('change', load);
    ui.runsModel.addEventListener('change', load);
    ui.compareRuns.addEventListener('click', () => {
      const [a, b] = [...ticked];
      if (a && b) compare.open(a, b);
    });
    ui.deleteConfirm.addEventListener('click', deleteRun);
    ui.deleteCancel.addEventListener('click', () => ui.deleteDialog.close());
    showCompare();
  }

  return { load, markCurrent, listen };
}
