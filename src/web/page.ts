/**
 * The playground page: HTML, CSS and the script, as strings so that the bundler ships them inside the
 * CLI with no asset files to find at run time. The script is the source of `playgroundClient` and
 * `createTraceView` (in `client.js` and `client-trace.js`, real files that the linter checks), served from its own route so the Content-Security-
 * Policy can forbid inline scripts.
 *
 * @module
 */
import { playgroundClient } from './client.js';
import { createTraceView } from './client-trace.js';

/**
 * `/app.js`: the client function's source, called with the trace view's, once the module loads. The
 * `__name` stub keeps the functions self-contained should the bundler ever be set to `keepNames` (which
 * wraps inner functions in calls to its own `__name` helper).
 */
export const PAGE_SCRIPT = [
  'const __name = (target) => target;',
  `(${playgroundClient.toString()})(${createTraceView.toString()});`,
  '',
].join('\n');

/** `/`: the page. Every dynamic text is filled in by the script with `textContent`. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>taoloop playground</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body>
<header>
  <h1>taoloop playground</h1>
  <p>Ask a question and watch the agent think, act and observe, one step at a time.</p>
</header>
<main>
  <section class="controls" aria-labelledby="new-run-heading">
    <h2 id="new-run-heading">New run</h2>
    <form id="run-form">
      <label for="question">Question</label>
      <textarea id="question" name="question" rows="3" required maxlength="4000"
        placeholder="How much does Brightgrid Pro cost per year for 7 developers?"></textarea>
      <label for="model">Model</label>
      <select id="model" name="model"></select>
      <p id="model-help" class="help" hidden></p>
      <fieldset id="tools"><legend>Tools</legend></fieldset>
      <label for="max-steps">Step limit: <output id="max-steps-value" for="max-steps">8</output></label>
      <input type="range" id="max-steps" name="max-steps" min="1" max="20" value="8">
      <div class="buttons">
        <button type="submit" id="start">Run</button>
        <button type="button" id="stop" disabled>Stop</button>
      </div>
      <p id="form-error" class="form-error" role="alert"></p>
    </form>
    <div class="runs-heading">
      <h2 id="runs-heading">Past runs</h2>
      <button type="button" id="refresh-runs">Refresh</button>
    </div>
    <ul id="runs" aria-labelledby="runs-heading"></ul>
  </section>
  <section class="run" aria-labelledby="trace-heading">
    <h2 id="trace-heading">Trace</h2>
    <p id="run-title" class="run-title"></p>
    <p id="run-meta" class="run-meta"></p>
    <dl class="counts">
      <div><dt>Steps</dt><dd id="count-steps">0</dd></div>
      <div><dt>Tokens</dt><dd id="count-tokens">unknown</dd></div>
      <div><dt>Cost</dt><dd id="count-cost">unknown</dd></div>
    </dl>
    <p id="status" class="status" role="status"></p>
    <p><a id="download" hidden download>Download trace (JSONL)</a></p>
    <ol id="trace" class="trace" aria-live="polite" aria-relevant="additions"></ol>
  </section>
</main>
</body>
</html>
`;

/** `/app.css`. */
export const PAGE_CSS = `:root {
  color-scheme: light;
  --ink: #1d2330; --muted: #5b6475; --line: #d8dde6; --paper: #ffffff; --page: #f4f6f9;
  --thought: #8a93a6; --action: #2f6fdb; --observation: #168a7a; --answer: #2e8b3e;
  --error: #c62828; --dropped: #b7791f; --approval: #d9691f;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--page); color: var(--ink); }
header { padding: 0.8rem 1.5rem; background: #1d2330; color: #fff; }
header h1 { margin: 0; font-size: 1.3rem; }
header p { margin: 0.2rem 0 0; color: #c9d1e0; }
main { display: grid; grid-template-columns: minmax(18rem, 24rem) 1fr; gap: 1.2rem; padding: 1.2rem 1.5rem; }
@media (max-width: 50rem) { main { grid-template-columns: 1fr; } }
section { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.2rem; }
h2 { font-size: 1.05rem; margin: 0 0 0.6rem; }
label { display: block; font-weight: 600; margin: 0.7rem 0 0.25rem; }
textarea, select { width: 100%; font: inherit; padding: 0.4rem; border: 1px solid var(--line); border-radius: 4px; }
input[type="range"] { width: 100%; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 0.8rem 0 0; padding: 0.3rem 0.7rem 0.5rem; }
legend { font-weight: 600; padding: 0 0.3rem; }
.tool { display: grid; grid-template-columns: auto auto 1fr; align-items: center; column-gap: 0.4rem; margin-top: 0.3rem; }
.tool label { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-weight: 600; }
.tool-description { grid-column: 2 / 4; margin: 0; color: var(--muted); font-size: 0.85rem; }
.badge { justify-self: start; font-size: 0.75rem; color: #fff; background: var(--approval); border-radius: 999px; padding: 0 0.5rem; }
.buttons { display: flex; gap: 0.5rem; margin-top: 0.8rem; }
button { font: inherit; padding: 0.35rem 0.9rem; border-radius: 4px; border: 1px solid #9aa4b5; background: #eef1f6; cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; }
button#start, button.approve { background: var(--action); border-color: var(--action); color: #fff; }
button#stop, button.reject { background: #fff; border-color: var(--error); color: var(--error); }
:focus-visible { outline: 3px solid #f0b429; outline-offset: 2px; }
.help, .form-error { white-space: pre-wrap; font-size: 0.85rem; }
.form-error { color: var(--error); }
.runs-heading { display: flex; justify-content: space-between; align-items: center; margin-top: 1.4rem; }
.runs-heading h2 { margin: 0; }
#runs { list-style: none; padding: 0; margin: 0.5rem 0 0; }
#runs li { border-top: 1px solid var(--line); padding: 0.4rem 0; }
.run-link { display: block; width: 100%; text-align: left; background: none; border: none; padding: 0; color: var(--action); text-decoration: underline; overflow-wrap: anywhere; }
.meta { display: block; color: var(--muted); font-size: 0.8rem; }
.run-title { font-weight: 600; font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
.run-meta { color: var(--muted); font-size: 0.85rem; margin: 0.1rem 0 0.5rem; }
.counts { display: flex; gap: 1.5rem; margin: 0 0 0.5rem; }
.counts div { display: flex; gap: 0.4rem; }
.counts dt { color: var(--muted); }
.counts dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
.status { color: var(--muted); min-height: 1.4em; margin: 0; }
.trace { list-style: none; padding: 0; margin: 0.5rem 0 0; display: grid; gap: 0.5rem; }
.block { border-left: 4px solid var(--line); background: #fafbfc; border-radius: 0 6px 6px 0; padding: 0.45rem 0.8rem; }
.block .label { display: block; font-size: 0.78rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.block .text { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9rem; }
.block.thought { border-color: var(--thought); }
.block.thought .text { font-family: inherit; font-style: italic; color: #3b4354; }
.block.action { border-color: var(--action); }
.block.observation { border-color: var(--observation); }
.block.observation.failed { border-color: var(--error); }
.block.answer { border-color: var(--answer); background: #eef8f0; }
.block.answer .text { font-family: inherit; font-size: 1.05rem; font-weight: 600; }
.block.format-error, .block.format-hint, .block.error { border-color: var(--error); background: #fdf1f1; }
.block.dropped { border-color: var(--dropped); background: #fdf7ea; }
.block.dropped .text { text-decoration: line-through; color: var(--muted); }
.block.approval { border-color: var(--approval); background: #fff6ee; }
.block.approval label { font-size: 0.85rem; }
.block.approval textarea { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.block.approval .decision { margin: 0.4rem 0 0; font-weight: 600; }
.block.end { border-color: var(--muted); }
.block.end.answered { border-color: var(--answer); }
`;
