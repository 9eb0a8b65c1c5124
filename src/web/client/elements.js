/**
 * The page's elements, by the names the rest of the script uses (the ids are in `page.ts`).
 *
 * Like every part of the page script, this runs in the browser and is served as its source text (see
 * `main.js`): it uses nothing from outside the function.
 */
export function findPageElements() {
  const byId = (id) => document.getElementById(id);
  const ui = {
    main: byId('main'),
    form: byId('run-form'),
    question: byId('question'),
    model: byId('model'),
    modelHelp: byId('model-help'),
    tools: byId('tools'),
    maxSteps: byId('max-steps'),
    maxStepsValue: byId('max-steps-value'),
    start: byId('start'),
    stop: byId('stop'),
    runAgain: byId('run-again'),
    editAgain: byId('edit-again'),
    formError: byId('form-error'),
    runs: byId('runs'),
    refreshRuns: byId('refresh-runs'),
    traceHeading: byId('trace-heading'),
    thread: byId('thread'),
    runTitle: byId('run-title'),
    runMeta: byId('run-meta'),
    status: byId('status'),
    download: byId('download'),
    permalink: byId('permalink'),
    follow: byId('follow'),
    trace: byId('trace'),
    timeline: byId('timeline'),
    timelineBox: byId('timeline-box'),
    steps: byId('count-steps'),
    tokens: byId('count-tokens'),
    cost: byId('count-cost'),
    costHelp: byId('cost-help'),
    followUpForm: byId('follow-up-form'),
    followUp: byId('follow-up'),
  };
  /** The run's section (its trace, buttons and follow-up form). */
  ui.run = ui.trace.closest('section');
  return ui;
}
