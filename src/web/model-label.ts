/**
 * How the playground names a model: one name for the picker, the run on screen and the past runs.
 *
 * @module
 */
import { parseModelSpec } from '../models/spec.js';

/**
 * How the model picker names a spec: the model's name first, then where it runs, so that two models on
 * one server, or one model on two servers, read apart (`qwen2.5-7b · 127.0.0.1:8080`,
 * `gpt-4o-mini · OpenAI`). A spec that does not parse is shown as it is.
 */
export function modelLabel(spec: string): string {
  let parsed: ReturnType<typeof parseModelSpec>;
  try {
    parsed = parseModelSpec(spec);
  } catch {
    return spec;
  }
  const PROVIDERS = { openai: 'OpenAI', anthropic: 'Anthropic', google: 'Google', ollama: 'Ollama' };
  switch (parsed.provider) {
    case 'openai-compatible':
      return `${parsed.modelId} · ${new URL(parsed.baseURL).host}`;
    case 'local':
      return `${parsed.source.split(/[\\/]/).pop() || parsed.source} · embedded, runs on this machine`;
    case 'replay':
      return `${parsed.file.split(/[\\/]/).pop() || parsed.file} · replay of a trace`;
    default:
      return `${parsed.modelId} · ${PROVIDERS[parsed.provider]}`;
  }
}
