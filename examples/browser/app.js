// The whole ReAct loop in the page: the model (llama.cpp in WebAssembly), the tools and the loop.
// `?model=<url of a .gguf>` fills the model field and starts a run at once; `?maxSteps=N` caps the run.
// Stop aborts the run: its AbortController's signal is the run's `signal`, which cancels the model call
// in flight and ends the run with status `aborted`.
import { browserModel, calculator, createSearchTool, streamAgent } from 'taoloop/browser';

const DOCUMENTS = ['pricing.md', 'refunds.md', 'exports.md'];
const WASM_URL = new URL('../../node_modules/@wllama/wllama/esm/wasm/wllama.wasm', import.meta.url);

const form = document.querySelector('#form');
const stopButton = document.querySelector('#stop');
const progress = document.querySelector('#progress');
const steps = document.querySelector('#steps');
const status = document.querySelector('#status');
const params = new URLSearchParams(location.search);
/** The run in progress: what stops it. */
let controller;

/** The Brightgrid documents, fetched from the static server and passed to the search tool as strings. */
async function loadDocuments() {
  const texts = await Promise.all(
    DOCUMENTS.map(async (name) => {
      const response = await fetch(new URL(`../brightgrid/${name}`, import.meta.url));
      if (!response.ok) throw new Error(`Cannot fetch ../brightgrid/${name}: HTTP ${response.status}`);
      return [name, await response.text()];
    }),
  );
  return Object.fromEntries(texts);
}

function showStatus(text, value) {
  status.textContent = text;
  status.dataset.status = value;
}

/** One part of a step (`Thought: ...`), its text set as text, never as HTML. */
function part(kind, label, text) {
  const box = document.createElement('div');
  box.className = `part ${kind}`;
  const name = document.createElement('span');
  name.className = 'label';
  name.textContent = `${label}: `;
  const body = document.createElement(kind === 'observation' || kind === 'writing' ? 'pre' : 'span');
  body.className = 'text';
  body.textContent = text;
  box.append(name, body);
  return box;
}

/** A step on screen: an `<article>` named after it, in the list of steps. */
function newStep(index) {
  const item = document.createElement('li');
  const article = document.createElement('article');
  article.setAttribute('aria-label', `Step ${index}`);
  item.append(article);
  steps.append(item);
  return article;
}

/** Shows a finished step: its Thought, then its Action or Answer, then the Observation the model got. */
function showStep(article, step) {
  const { turn } = step;
  const parts = [];
  if (turn.thought) parts.push(part('thought', 'Thought', turn.thought));
  else if (turn.type === 'none') parts.push(part('thought', 'Model text', step.modelText));
  if (turn.type === 'action') parts.push(part('action', 'Action', `${turn.tool}[${turn.input}]`));
  if (turn.type === 'answer') parts.push(part('answer', 'Answer', turn.text));
  if (step.observation) parts.push(part('observation', 'Observation', step.observation.text));
  // A line break between parts: the step's text reads as the turn the model wrote, then its observation.
  article.replaceChildren(...parts.flatMap((p, i) => (i === 0 ? [p] : ['\n', p])));
}

async function run(modelUrl, question) {
  controller = new AbortController();
  const { signal } = controller;
  form.run.disabled = true;
  stopButton.disabled = false;
  steps.replaceChildren();
  delete status.dataset.status;
  status.textContent = '';
  let model;
  try {
    progress.textContent = 'Loading the model...';
    model = await browserModel({
      model: new URL(modelUrl, location.href).href,
      wasmUrl: WASM_URL,
      onProgress: ({ loadedBytes, totalBytes }) => {
        progress.textContent = `Downloading the model: ${Math.round((100 * loadedBytes) / (totalBytes || 1))}%`;
      },
    });
    progress.textContent = `Model ${model.id} loaded (${model.contextWindowTokens} tokens of context).`;
    const search = await createSearchTool({ documents: await loadDocuments(), collectionName: 'brightgrid' });
    const maxSteps = Number(params.get('maxSteps') ?? 8);
    // A Stop while the model loaded ends the run at once: the loop checks the signal before each call.
    const events = streamAgent({ model, tools: [calculator, search], question, maxSteps, signal });
    let current;
    let writing;
    for await (const event of events) {
      if (event.type === 'model-start') {
        current = newStep(event.step);
        writing = part('writing', 'Writing', '');
        current.append(writing);
      } else if (event.type === 'model-delta' && writing) {
        // `shown`: the reply as it may be shown (never an observation the model invents).
        writing.querySelector('.text').textContent += event.shown;
      } else if (event.type === 'step-end' && current) {
        showStep(current, event.step);
        writing = undefined;
      } else if (event.type === 'run-end') {
        // A turn cut short by Stop (or a failure) stays on screen, said to be unfinished.
        if (writing) {
          writing.className = 'part unfinished';
          writing.querySelector('.label').textContent = 'Unfinished (the run ended here): ';
        }
        const { result } = event;
        const answer = result.answer === undefined ? '' : `: ${result.answer}`;
        showStatus(
          `Run ended: ${result.status}${answer}${result.error ? ` (${result.error})` : ''}`,
          result.status,
        );
      }
    }
  } catch (error) {
    showStatus(`Failed: ${error instanceof Error ? error.message : String(error)}`, 'failed');
  } finally {
    await model?.dispose();
    const hadFocus = document.activeElement === stopButton;
    stopButton.disabled = true;
    form.run.disabled = false;
    // Focus was on Stop, now disabled: it goes to how the run ended.
    if (hadFocus) status.focus();
    controller = undefined;
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  run(form.model.value, form.question.value);
});

stopButton.addEventListener('click', () => {
  stopButton.disabled = true;
  controller?.abort(new Error('stopped from the page'));
});

if (params.get('model')) {
  form.model.value = params.get('model');
  run(form.model.value, form.question.value);
}
