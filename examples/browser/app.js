// The whole ReAct loop in the page: the model (llama.cpp in WebAssembly), the tools and the loop.
// `?model=<url of a .gguf>` fills the model field and starts a run at once; `?maxSteps=N` caps the run.
import { browserModel, calculator, createSearchTool, streamAgent } from 'taoloop/browser';

const DOCUMENTS = ['pricing.md', 'refunds.md', 'exports.md'];
const WASM_URL = new URL('../../node_modules/@wllama/wllama/esm/wasm/wllama.wasm', import.meta.url);

const form = document.querySelector('#form');
const progress = document.querySelector('#progress');
const steps = document.querySelector('#steps');
const status = document.querySelector('#status');
const params = new URLSearchParams(location.search);

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

async function run(modelUrl, question) {
  form.run.disabled = true;
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
    let current;
    for await (const event of streamAgent({ model, tools: [calculator, search], question, maxSteps })) {
      if (event.type === 'model-start') {
        current = document.createElement('li');
        steps.append(current);
      } else if (event.type === 'model-delta' && current) {
        current.textContent += event.text;
      } else if (event.type === 'step-end' && current) {
        current.textContent = event.step.modelText;
        if (event.step.observation) current.textContent += `\nObservation: ${event.step.observation.text}`;
      } else if (event.type === 'run-end') {
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
    form.run.disabled = false;
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  run(form.model.value, form.question.value);
});

if (params.get('model')) {
  form.model.value = params.get('model');
  run(form.model.value, form.question.value);
}
