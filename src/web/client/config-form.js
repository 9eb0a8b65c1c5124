/**
 * The new-run form: filled from the server's configuration (models, tools, step limit, temperature), read
 * as a run request (with the instructions added to the system prompt, and a second model to run it on
 * too), and filled again with a run's options ("edit and run again", a reloaded page).
 */
export function createConfigForm({ ui, el, api, state }) {
  /** The model picker's value for the in-page model (never a server model spec). */
  const IN_PAGE = 'in-page';

  /** Loads the configuration and shows it; a page opened on a run's address then gets its options. */
  function load() {
    return api('/api/config')
      .then((config) => {
        showConfig(config);
        state.configLoaded = true;
        // A reloaded or shared run puts its question, model, tools and limits back in the form.
        if (state.fillOnLoad && state.run.options) {
          fill(state.run.options);
          state.fillOnLoad = false;
        }
      })
      .catch((error) => {
        ui.formError.textContent = `Could not load the configuration: ${error.message}`;
      });
  }

  function showConfig(config) {
    showModels(config);
    showTools(config.tools);
    ui.maxSteps.min = String(config.maxSteps.min);
    ui.maxSteps.max = String(config.maxSteps.max);
    ui.maxSteps.value = String(config.maxSteps.default);
    ui.maxStepsValue.textContent = ui.maxSteps.value;
    if (config.temperature) {
      ui.temperature.min = String(config.temperature.min);
      ui.temperature.max = String(config.temperature.max);
      ui.temperature.step = String(config.temperature.step);
      ui.temperature.value = String(config.temperature.default);
    }
    ui.temperatureValue.textContent = ui.temperature.value;
    showSecondModels(config.models);
  }

  /** The second model picker ("Also run on"): none, or one of the server's models. */
  function showSecondModels(models) {
    const none = el('option', undefined, 'No second model');
    none.value = '';
    ui.secondModel.replaceChildren(
      none,
      ...models.map((model) => {
        const option = el('option', undefined, model.label);
        option.value = model.spec;
        option.title = model.spec;
        return option;
      }),
    );
    ui.secondModel.disabled = models.length === 0;
    showStartLabel();
  }

  /** The Run button says "Run on both" while a second model is picked. */
  function showStartLabel() {
    ui.start.textContent = ui.secondModel.value ? 'Run on both' : 'Run';
  }

  /** The model picker: the server's models, then the in-page model, or why there is none. */
  function showModels(config) {
    ui.model.replaceChildren(
      ...config.models.map((model) => {
        const option = el('option', undefined, model.label);
        option.value = model.spec;
        option.title = model.spec;
        return option;
      }),
    );
    state.inPage = config.browserModel;
    if (state.inPage) {
      const option = el('option', undefined, state.inPage.label);
      option.value = IN_PAGE;
      option.title = 'The model runs in this page (WebAssembly), with the calculator and search.';
      ui.model.append(option);
    }
    if (!config.models.length && !state.inPage) {
      ui.model.append(el('option', undefined, 'No model configured'));
      ui.model.disabled = true;
      ui.start.disabled = true;
      ui.modelHelp.textContent = config.modelHelp ?? '';
      ui.modelHelp.hidden = false;
    } else if (config.modelNote) {
      ui.modelHelp.textContent = config.modelNote;
      ui.modelHelp.hidden = false;
    }
  }

  /** One ticked box per tool, with its description and, for a tool that asks first, a badge. */
  function showTools(tools) {
    ui.tools.replaceChildren(el('legend', undefined, 'Tools'));
    for (const tool of tools) {
      const box = el('input');
      box.type = 'checkbox';
      box.value = tool.name;
      box.checked = true;
      box.id = `tool-${tool.name}`;
      const label = el('label', 'tool-name', tool.name);
      label.htmlFor = box.id;
      const row = el('div', 'tool');
      row.append(box, label);
      if (tool.needsApproval) row.append(el('span', 'badge', `${tool.effects}: asks first`));
      row.append(el('p', 'tool-description', tool.description));
      ui.tools.append(row);
    }
  }

  /** The form's choices as a run request. */
  function options() {
    const tools = [...ui.tools.querySelectorAll('input[type="checkbox"]:checked')].map((box) => box.value);
    const instructions = ui.instructions.value.trim();
    return {
      question: ui.question.value,
      model: ui.model.value,
      tools,
      maxSteps: Number(ui.maxSteps.value),
      temperature: Number(ui.temperature.value),
      ...(instructions && { instructions }),
    };
  }

  /** The second model picked ("Also run on"), or '' for none. */
  function secondModel() {
    return ui.secondModel.value;
  }

  /** Puts the run's options in the form, for "edit and run again" (and a reloaded page). */
  function fill(options) {
    ui.question.value = options.question;
    if ([...ui.model.options].some((option) => option.value === options.model))
      ui.model.value = options.model;
    for (const box of ui.tools.querySelectorAll('input[type="checkbox"]'))
      box.checked = options.tools.includes(box.value);
    if (options.maxSteps) ui.maxSteps.value = String(options.maxSteps);
    ui.maxStepsValue.textContent = ui.maxSteps.value;
    ui.temperature.value = String(options.temperature ?? ui.temperature.min ?? 0);
    ui.temperatureValue.textContent = ui.temperature.value;
    ui.instructions.value = options.instructions ?? '';
  }

  /** Whether the picker's value `model` is the in-page model. */
  function isInPage(model) {
    return model === IN_PAGE;
  }

  return { load, options, fill, isInPage, secondModel, showStartLabel };
}
