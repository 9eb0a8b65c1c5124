/**
 * The playground page: HTML, CSS and the script, as strings so that the bundler ships them inside the
 * CLI with no asset files to find at run time. The script is the source of `playgroundClient` and of the
 * factories it is given (in `client/`, real files that the linter checks), served from its own route so
 * the Content-Security-Policy can forbid inline scripts.
 *
 * @module
 */
import { createApi } from './client/api.js';
import { createCompare } from './client/compare.js';
import { createConfigForm } from './client/config-form.js';
import { findPageElements } from './client/elements.js';
import { createForkDialog } from './client/fork-dialog.js';
import { createInPageRun } from './client/in-page.js';
import { type ClientParts, playgroundClient } from './client/main.js';
import { createMarkdown } from './client/markdown.js';
import { createRunActions } from './client/run-actions.js';
import { createRunDisplay } from './client/run-display.js';
import { createRunsList } from './client/runs-list.js';
import { createServerRun } from './client/server-run.js';
import { createApprovals } from './client/trace/approvals.js';
import { createCounters } from './client/trace/counters.js';
import { createTraceEvents } from './client/trace/events.js';
import { createTraceHelpers } from './client/trace/helpers.js';
import { createInspector } from './client/trace/inspector.js';
import { createLiveText } from './client/trace/live.js';
import { createRunEnd } from './client/trace/run-end.js';
import { createTraceSteps } from './client/trace/steps.js';
import { createTimeline } from './client/trace/timeline.js';
import { createTurns } from './client/trace/turns.js';
import { createTraceView } from './client/trace/view.js';

/**
 * Every factory of the page script, by the name it is called by. Each is served as its own source text,
 * as a property of the object `playgroundClient` is given: they call each other only through that object,
 * never by their names in these modules (the bundler may rename those).
 */
const CLIENT_PARTS: ClientParts = {
  findPageElements,
  createApi,
  createConfigForm,
  createRunsList,
  createRunDisplay,
  createServerRun,
  createInPageRun,
  createRunActions,
  createTraceView,
  createTraceHelpers,
  createTraceSteps,
  createLiveText,
  createCounters,
  createTimeline,
  createInspector,
  createApprovals,
  createTurns,
  createRunEnd,
  createTraceEvents,
  createMarkdown,
  createCompare,
  createForkDialog,
};

/**
 * `/app.js`: the client function's source, called with the factories' sources, once the module loads.
 * The `__name` stub keeps the functions self-contained should the bundler ever be set to `keepNames`
 * (which wraps inner functions in calls to its own `__name` helper).
 */
export const PAGE_SCRIPT = [
  'const __name = (target) => target;',
  `(${playgroundClient.toString()})({`,
  ...Object.entries(CLIENT_PARTS).map(([name, factory]) => `${name}: ${factory.toString()},`),
  '});',
  '',
].join('\n');

/** `/`: the page. Every dynamic text is filled in by the script with `textContent`. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>taoloop playground</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body>
<header>
  <h1>taoloop playground</h1>
  <p>Ask a question and watch the agent think, act and observe, one step at a time.</p>
</header>
<main id="main">
  <section class="controls" aria-labelledby="new-run-heading">
    <h2 id="new-run-heading">New run</h2>
    <form id="run-form">
      <label for="question">Question</label>
      <textarea id="question" name="question" rows="3" required maxlength="4000" aria-describedby="keys-help"
        placeholder="How much does Brightgrid Pro cost per year for 7 developers?"></textarea>
      <p id="keys-help" class="help">Ctrl+Enter (⌘+Enter on a Mac) runs; Escape stops a run.</p>
      <label for="model">Model</label>
      <select id="model" name="model"></select>
      <p id="model-help" class="help" hidden></p>
      <fieldset id="tools"><legend>Tools</legend></fieldset>
      <label for="max-steps">Step limit: <output id="max-steps-value" for="max-steps">8</output></label>
      <input type="range" id="max-steps" name="max-steps" min="1" max="20" value="8">
      <label for="temperature">Temperature: <output id="temperature-value" for="temperature">0</output></label>
      <input type="range" id="temperature" name="temperature" min="0" max="2" step="0.1" value="0" aria-describedby="temperature-help">
      <p id="temperature-help" class="help">0 gives the most likely turn each time; higher varies more.</p>
      <label for="instructions">Instructions (added to the system prompt)</label>
      <textarea id="instructions" name="instructions" rows="2" maxlength="4000" aria-describedby="instructions-help"
        placeholder="Answer in one short sentence."></textarea>
      <p id="instructions-help" class="help">Optional. A run's whole system prompt is under its title.</p>
      <label for="second-model">Also run on</label>
      <select id="second-model" name="second-model" aria-describedby="second-model-help"></select>
      <p id="second-model-help" class="help">Pick a second model to run the same question on both, side by side.</p>
      <div class="buttons">
        <button type="submit" id="start">Run</button>
      </div>
      <p id="form-error" class="form-error" role="alert"></p>
    </form>
  </section>
  <section class="run" aria-labelledby="trace-heading">
    <div class="run-head">
      <h2 id="trace-heading" tabindex="-1">Trace</h2>
      <div class="buttons run-buttons">
        <button type="button" id="stop" disabled hidden>Stop</button>
        <button type="button" id="run-again" hidden>Run again</button>
        <button type="button" id="edit-again" hidden>Edit and run again</button>
        <button type="button" id="save-test" hidden>Save as test</button>
      </div>
    </div>
    <div id="saved-test" class="saved-test" role="status"></div>
    <ol id="thread" class="thread" aria-label="Earlier in this conversation" hidden></ol>
    <p id="run-title" class="run-title"></p>
    <p id="run-meta" class="run-meta"></p>
    <p id="fork-note" class="fork-note" hidden></p>
    <details id="system-prompt-box" class="system-prompt" hidden>
      <summary>System prompt of this run</summary>
      <pre id="system-prompt" tabindex="0" role="group" aria-label="System prompt of this run"></pre>
    </details>
    <dl class="counts">
      <div><dt>Steps</dt><dd id="count-steps">0</dd></div>
      <div><dt>Tokens</dt><dd id="count-tokens">unknown</dd></div>
      <div><dt>Cost</dt><dd id="count-cost">unknown</dd></div>
    </dl>
    <p id="cost-help" class="help" hidden></p>
    <div id="timeline-box" class="timeline-box" hidden>
      <h3 id="timeline-heading">Timeline <span class="legend"><span class="key model"></span> model <span class="key tool"></span> tool</span></h3>
      <ol id="timeline" class="timeline" aria-label="Time per step"></ol>
    </div>
    <p id="status" class="status" role="status">No run on screen: ask a question, or open a past run.</p>
    <div class="trace-tools">
      <a id="download" hidden download>Download trace (JSONL)</a>
      <a id="permalink" hidden>Link to this run</a>
      <label class="follow"><input type="checkbox" id="follow" checked> Follow the newest step</label>
    </div>
    <ol id="trace" class="trace"></ol>
    <form id="follow-up-form" class="follow-up" hidden>
      <label for="follow-up">Follow-up (continues this conversation)</label>
      <textarea id="follow-up" rows="2" maxlength="4000"></textarea>
      <div class="buttons"><button type="submit" id="ask-follow-up">Ask</button></div>
    </form>
  </section>
  <section id="compare" class="compare" aria-labelledby="compare-heading" hidden>
    <div class="run-head">
      <h2 id="compare-heading" tabindex="-1">Compare runs</h2>
      <div class="buttons run-buttons"><button type="button" id="close-compare">Close comparison</button></div>
    </div>
    <p id="compare-status" class="status" role="status"></p>
    <div id="compare-body"></div>
  </section>
  <section class="past" aria-labelledby="runs-heading">
    <div class="runs-heading">
      <h2 id="runs-heading">Past runs</h2>
      <button type="button" id="refresh-runs">Refresh</button>
    </div>
    <form id="runs-filter" class="runs-filter" role="search" aria-label="Past runs">
      <label for="runs-search">Search past runs</label>
      <input type="search" id="runs-search" autocomplete="off" aria-describedby="runs-search-help">
      <p id="runs-search-help" class="help">Looks for each word in the asked and the answered text.</p>
      <div class="filter-row">
        <div><label for="runs-status">Ended</label><select id="runs-status"><option value="">Any status</option></select></div>
        <div><label for="runs-model">Ran on</label><select id="runs-model"><option value="">Any model</option></select></div>
      </div>
    </form>
    <div class="compare-bar">
      <button type="button" id="compare-runs" disabled aria-describedby="compare-help">Compare</button>
      <span id="compare-help" class="help">Tick two runs to compare them side by side.</span>
    </div>
    <p id="runs-count" class="help" role="status"></p>
    <ul id="runs" aria-labelledby="runs-heading"></ul>
  </section>
</main>
<dialog id="delete-dialog" aria-labelledby="delete-title" aria-describedby="delete-text">
  <h2 id="delete-title">Delete this run?</h2>
  <p id="delete-text"></p>
  <p id="delete-error" class="form-error" role="alert"></p>
  <div class="buttons">
    <button type="button" id="delete-confirm" class="danger">Delete the run</button>
    <button type="button" id="delete-cancel">Keep it</button>
  </div>
</dialog>
<dialog id="fork-dialog" aria-labelledby="fork-title" aria-describedby="fork-help">
  <form id="fork-form">
    <h2 id="fork-title">Fork from this step</h2>
    <p id="fork-help" class="help"></p>
    <label for="fork-turn" id="fork-turn-label">Turn</label>
    <textarea id="fork-turn" rows="4" maxlength="20000"></textarea>
    <div id="fork-observation-box">
      <label for="fork-observation" id="fork-observation-label">Observation</label>
      <textarea id="fork-observation" rows="4" maxlength="20000" aria-describedby="fork-observation-help"></textarea>
      <p id="fork-observation-help" class="help">You play the tool: it does not run at this step, and the model reads this text as its output. Leave it as it is to keep the recorded one.</p>
    </div>
    <p id="fork-error" class="form-error" role="alert"></p>
    <div class="buttons">
      <button type="submit" id="fork-start">Run from here</button>
      <button type="button" id="fork-cancel">Cancel</button>
    </div>
  </form>
</dialog>
</body>
</html>
`;

/** `/app.css`. Light by default, dark when the system asks for it; one column under 50rem. */
export const PAGE_CSS = `:root {
  color-scheme: light dark;
  --ink: #1d2330; --muted: #525b6b; --line: #d3d9e2; --paper: #ffffff; --page: #f4f6f9; --block: #f7f8fa;
  --thought: #7d8699; --action: #2563c9; --observation: #13786a; --answer: #2b7a39;
  --error: #b42323; --dropped: #9a5f10; --approval: #a3480d; --link: #1f56b3;
  --answer-bg: #eaf6ec; --error-bg: #fcefef; --dropped-bg: #fcf5e6; --approval-bg: #fff3e8;
  --button: #eef1f6; --button-line: #8a94a6; --on-accent: #ffffff; --focus: #c77c00; --header: #1d2330; --header-muted: #c9d1e0;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --ink: #e4e8ef; --muted: #a3acbb; --line: #3a4252; --paper: #1b2029; --page: #12161d; --block: #222834;
    --thought: #8f99ad; --action: #6ea2ff; --observation: #4fc1ae; --answer: #6fcf7f;
    --error: #ff8a80; --dropped: #e0b25c; --approval: #ffae6b; --link: #8db8ff;
    --answer-bg: #1d2d22; --error-bg: #3a2226; --dropped-bg: #33291a; --approval-bg: #38271b;
    --button: #2a303c; --button-line: #5d677a; --on-accent: #10141b; --focus: #ffd25e; --header: #0b0e13; --header-muted: #aeb7c6;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--page); color: var(--ink); }
header { padding: 0.8rem 1.5rem; background: var(--header); color: #fff; }
header h1 { margin: 0; font-size: 1.3rem; }
header p { margin: 0.2rem 0 0; color: var(--header-muted); }
main { display: grid; grid-template-columns: minmax(18rem, 24rem) minmax(0, 1fr); grid-template-rows: auto 1fr; grid-template-areas: "form run" "past run"; align-items: start; gap: 1.2rem; padding: 1.2rem 1.5rem; }
.controls { grid-area: form; }
.run { grid-area: run; min-width: 0; }
.past { grid-area: past; }
@media (max-width: 50rem) {
  main { grid-template-columns: minmax(0, 1fr); grid-template-rows: none; grid-template-areas: "form" "run" "past"; padding: 0.8rem; gap: 0.8rem; }
  main.has-run { grid-template-areas: "run" "form" "past"; }
  header { padding: 0.6rem 0.8rem; }
  section { padding: 0.8rem; }
}
section { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.2rem; min-width: 0; }
h2 { font-size: 1.05rem; margin: 0 0 0.6rem; }
h3 { font-size: 0.95rem; margin: 0; }
a { color: var(--link); }
label { display: block; font-weight: 600; margin: 0.7rem 0 0.25rem; }
textarea, select { width: 100%; max-width: 100%; font: inherit; padding: 0.4rem; border: 1px solid var(--button-line); border-radius: 4px; background: var(--paper); color: var(--ink); }
input[type="range"] { width: 100%; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 0.8rem 0 0; padding: 0.3rem 0.7rem 0.5rem; min-width: 0; }
legend { font-weight: 600; padding: 0 0.3rem; }
.tool { display: grid; grid-template-columns: auto auto 1fr; align-items: center; column-gap: 0.4rem; margin-top: 0.3rem; }
.tool label { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-weight: 600; overflow-wrap: anywhere; }
.tool-description { grid-column: 2 / 4; margin: 0; color: var(--muted); font-size: 0.85rem; }
.badge { justify-self: start; font-size: 0.75rem; color: var(--on-accent); background: var(--approval); border-radius: 999px; padding: 0 0.5rem; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 0.8rem; }
button { font: inherit; padding: 0.35rem 0.9rem; border-radius: 4px; border: 1px solid var(--button-line); background: var(--button); color: var(--ink); cursor: pointer; }
button:disabled { opacity: 0.55; cursor: default; }
button#start, button.approve, button#ask-follow-up { background: var(--action); border-color: var(--action); color: var(--on-accent); }
button#stop, button.reject { background: var(--paper); border-color: var(--error); color: var(--error); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
[tabindex="-1"]:focus { outline: none; }
[tabindex="-1"]:focus-visible { outline: 3px solid var(--focus); }
.help, .form-error { white-space: pre-wrap; font-size: 0.85rem; color: var(--muted); overflow-wrap: anywhere; }
.form-error { color: var(--error); }
.form-error:not(:empty) { margin: 0.6rem 0 0; padding: 0.4rem 0.6rem; border-left: 4px solid var(--error); background: var(--error-bg); font-weight: 600; }
#tools input[aria-invalid="true"] + label { color: var(--error); text-decoration: underline wavy; }
.runs-heading { display: flex; justify-content: space-between; align-items: center; }
.runs-heading h2 { margin: 0; }
#runs { list-style: none; padding: 0; margin: 0.5rem 0 0; }
#runs li { border-top: 1px solid var(--line); padding: 0.4rem 0; }
#runs li[aria-current="true"] { border-left: 3px solid var(--action); padding-left: 0.4rem; }
.run-link { display: block; width: 100%; text-align: left; background: none; border: none; padding: 0; color: var(--link); text-decoration: underline; overflow-wrap: anywhere; }
.meta { display: block; color: var(--muted); font-size: 0.8rem; overflow-wrap: anywhere; }
.run-head { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: 0.5rem; }
.run-head h2 { margin: 0; }
.run-buttons { margin-top: 0; }
.run-title { font-weight: 600; font-size: 1.05rem; margin: 0.4rem 0 0; overflow-wrap: anywhere; }
.run-meta { color: var(--muted); font-size: 0.85rem; margin: 0.1rem 0 0.5rem; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; column-gap: 1.5rem; row-gap: 0.2rem; margin: 0 0 0.5rem; }
.counts div { display: flex; gap: 0.4rem; min-width: 0; }
.counts dt { color: var(--muted); }
.counts dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.status { color: var(--muted); min-height: 1.4em; margin: 0.3rem 0 0; }
.trace-tools { display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; align-items: center; margin: 0.3rem 0; font-size: 0.9rem; }
.trace-tools .follow { display: flex; gap: 0.3rem; align-items: center; margin: 0; font-weight: normal; }
.timeline-box { margin: 0.3rem 0 0.6rem; }
.timeline-box h3 { font-size: 0.8rem; color: var(--muted); font-weight: 600; }
.legend { font-weight: normal; margin-left: 0.6rem; }
.key { display: inline-block; width: 0.7rem; height: 0.7rem; border-radius: 2px; vertical-align: middle; }
.key.model, .segment.model { background: var(--action); }
.key.tool, .segment.tool { background: var(--observation); }
.timeline { display: flex; gap: 3px; list-style: none; padding: 0; margin: 0.25rem 0 0; height: 0.9rem; }
.timeline-step { display: flex; min-width: 4px; flex-basis: 0; border-radius: 2px; overflow: hidden; }
.segment { flex-basis: 0; min-width: 2px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.thread { list-style: none; padding: 0; margin: 0.5rem 0; display: grid; gap: 0.4rem; }
.thread li { border-left: 3px solid var(--line); padding-left: 0.6rem; overflow-wrap: anywhere; }
.thread .asked { font-weight: 600; }
.thread .answered { color: var(--muted); white-space: pre-wrap; }
.trace, .blocks { list-style: none; padding: 0; margin: 0.5rem 0 0; display: grid; gap: 0.5rem; }
.blocks { margin: 0.3rem 0 0; }
.step { border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.6rem; min-width: 0; }
.step-head { display: flex; flex-wrap: wrap; gap: 0.2rem 0.8rem; align-items: baseline; }
.step-figures { margin: 0; color: var(--muted); font-size: 0.82rem; font-variant-numeric: tabular-nums; }
.block { border-left: 4px solid var(--line); background: var(--block); border-radius: 0 6px 6px 0; padding: 0.45rem 0.8rem; min-width: 0; }
.block .label { display: block; font-size: 0.78rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.block .text { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9rem; }
.block .note { margin: 0.3rem 0 0; font-size: 0.8rem; color: var(--muted); }
.block.thought { border-color: var(--thought); }
.block.thought .text { font-family: inherit; font-style: italic; }
.block.live { border-style: dashed; }
.block.unfinished { border-style: dotted; }
.block.action { border-color: var(--action); }
.block.observation { border-color: var(--observation); }
.block.observation.failed { border-color: var(--error); }
.block.answer { border-color: var(--answer); background: var(--answer-bg); }
.block.answer .text { font-family: inherit; font-size: 1.05rem; font-weight: 600; }
.block.format-error, .block.format-hint, .block.error, .block.retry { border-color: var(--error); background: var(--error-bg); }
.block.dropped { border-color: var(--dropped); background: var(--dropped-bg); }
.block.dropped .text { text-decoration: line-through; color: var(--muted); }
.block.approval { border-color: var(--approval); background: var(--approval-bg); }
.block.approval label { font-size: 0.85rem; }
.block.approval textarea { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.block.approval .decision { margin: 0.4rem 0 0; font-weight: 600; }
.block .folded summary { cursor: pointer; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9rem; overflow-wrap: anywhere; }
.block .folded .length { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--muted); font-size: 0.82rem; }
.block .folded .text { margin-top: 0.3rem; }
.block.end { border-color: var(--muted); }
.block.end.answered { border-color: var(--answer); }
.inspector { margin-top: 0.4rem; font-size: 0.85rem; min-width: 0; }
.inspector summary { cursor: pointer; color: var(--link); }
.inspect-body { display: grid; gap: 0.5rem; margin-top: 0.4rem; min-width: 0; }
.inspect-pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 0.5rem; min-width: 0; }
.inspect-part { min-width: 0; }
.inspect-part h4 { margin: 0 0 0.2rem; font-size: 0.8rem; }
.inspect-part pre, .messages pre { margin: 0; padding: 0.4rem; background: var(--block); border: 1px solid var(--line); border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 20rem; overflow-y: auto; font-size: 0.8rem; }
.messages { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.3rem; }
.messages .role { font-weight: 700; font-size: 0.75rem; text-transform: uppercase; color: var(--muted); }
.follow-up { margin-top: 0.8rem; border-top: 1px solid var(--line); }
input[type="search"] { width: 100%; font: inherit; padding: 0.35rem 0.4rem; border: 1px solid var(--button-line); border-radius: 4px; background: var(--paper); color: var(--ink); }
.runs-filter label { font-size: 0.85rem; margin: 0.5rem 0 0.15rem; }
.runs-filter .help { margin: 0.15rem 0 0; }
.filter-row { display: grid; grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr)); gap: 0 0.6rem; }
.compare-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem 0.6rem; margin-top: 0.6rem; }
.compare-bar .help { margin: 0; }
#runs-count { margin: 0.4rem 0 0; }
#runs li.past-run { display: grid; grid-template-columns: auto minmax(0, 1fr) auto; gap: 0 0.5rem; align-items: start; }
#runs li.past-run input { margin: 0.3rem 0 0; width: 1.1rem; height: 1.1rem; }
.past-run .delete { font-size: 0.8rem; padding: 0.15rem 0.5rem; }
button.danger, .past-run .delete { border-color: var(--error); color: var(--error); background: var(--paper); }
#delete-confirm { background: var(--error); border-color: var(--error); color: var(--on-accent); }
dialog { border: 1px solid var(--line); border-radius: 8px; background: var(--paper); color: var(--ink); width: min(40rem, calc(100vw - 1.5rem)); max-width: calc(100vw - 1.5rem); padding: 1rem 1.2rem; }
dialog::backdrop { background: rgb(0 0 0 / 0.45); }
dialog h2 { margin-top: 0; }
dialog textarea { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9rem; }
.compare { grid-area: run; min-width: 0; }
main.comparing .run { display: none; }
.compare-table { width: 100%; table-layout: fixed; border-collapse: collapse; margin-top: 0.5rem; }
.compare-table th, .compare-table td { border: 1px solid var(--line); padding: 0.4rem 0.5rem; vertical-align: top; text-align: left; overflow-wrap: anywhere; min-width: 0; }
.compare-table thead th { background: var(--block); }
.compare-table .step-row th { background: var(--block); font-size: 0.85rem; }
.compare-table .totals td { background: var(--block); }
.compare-table .what { display: block; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.85rem; white-space: pre-wrap; }
.compare-table .obs { display: block; margin-top: 0.3rem; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.8rem; color: var(--muted); white-space: pre-wrap; }
.compare-table .obs summary { cursor: pointer; overflow-wrap: anywhere; }
.compare-table .figs { display: block; margin-top: 0.3rem; font-size: 0.78rem; color: var(--muted); font-variant-numeric: tabular-nums; }
.compare-table .none { color: var(--muted); font-style: italic; }
.compare-table .kind { font-weight: 700; font-size: 0.72rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); display: block; }
.compare-table .markdown { font-family: inherit; }
@media (max-width: 50rem) { .compare-table th, .compare-table td { padding: 0.3rem; font-size: 0.85rem; } }
.fork-note { margin: 0 0 0.4rem; font-size: 0.9rem; overflow-wrap: anywhere; }
.system-prompt { margin: 0 0 0.5rem; font-size: 0.85rem; }
.system-prompt summary { cursor: pointer; color: var(--link); }
.system-prompt pre { margin: 0.3rem 0 0; padding: 0.4rem; background: var(--block); border: 1px solid var(--line); border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16rem; overflow-y: auto; font-size: 0.8rem; }
.saved-test:not(:empty) { margin: 0.5rem 0; padding: 0.4rem 0.6rem; border-left: 4px solid var(--answer); background: var(--answer-bg); font-size: 0.9rem; overflow-wrap: anywhere; }
.saved-test p { margin: 0.15rem 0; }
.saved-test code, .markdown code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.88em; background: var(--block); border: 1px solid var(--line); border-radius: 3px; padding: 0 0.2rem; overflow-wrap: anywhere; }
.step-actions { margin-left: auto; }
.step-actions button { font-size: 0.8rem; padding: 0.15rem 0.55rem; }
.step .replayed { margin: 0.1rem 0 0; font-size: 0.8rem; color: var(--muted); flex-basis: 100%; }
.block .markdown { white-space: normal; }
.markdown p { margin: 0 0 0.4rem; white-space: pre-line; }
.markdown > :last-child { margin-bottom: 0; }
.markdown ul, .markdown ol { margin: 0 0 0.4rem; padding-left: 1.4rem; }
.markdown blockquote { margin: 0 0 0.4rem; padding-left: 0.6rem; border-left: 3px solid var(--line); color: var(--muted); }
.markdown pre { margin: 0 0 0.4rem; padding: 0.4rem; background: var(--paper); border: 1px solid var(--line); border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; }
.markdown pre code { border: none; padding: 0; background: none; }
.markdown.markdown-plain { white-space: pre-wrap; overflow-wrap: anywhere; }
.markdown .md-table { overflow-x: auto; max-width: 100%; margin: 0 0 0.4rem; }
.markdown table { border-collapse: collapse; font-size: 0.9rem; }
.markdown th, .markdown td { border: 1px solid var(--line); padding: 0.2rem 0.4rem; text-align: left; }
.block.answer .markdown { font-weight: normal; font-size: 1rem; }
.block.answer .markdown > p:only-child { font-weight: 600; font-size: 1.05rem; }
`;
