/**
 * Writes a tiny random-weight llama model as a GGUF file, for tests and benchmarks of the local
 * (node-llama-cpp) adapter without downloading anything. The model loads, tokenizes, follows a grammar and
 * stops on end-of-generation; its text is noise, so it tests structure, never content.
 *
 * Shape: GGUF v3 (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md), architecture `llama`, 2 layers,
 * embedding 64, 4 heads, feed-forward 128, context 4096; a byte-level `gpt2` tokenizer (the 256 bytes in
 * GPT-2's byte-to-unicode alphabet, no merges but one) plus the ChatML control tokens `<|endoftext|>`,
 * `<|im_start|>` and `<|im_end|>` (end of generation), and a ChatML chat template, like Qwen2.5. All tensors
 * are f32, drawn from a fixed-seed generator, so the file is identical on every run (about 460 KB).
 * The model can generate only tab, newline and printable ASCII (other bytes are unused tokens), so a
 * grammar that needs a non-ASCII character (`Ação:`) dead-ends; real models have tokens for them.
 *
 * Steering: a random model under the ReAct grammar tends to pick `finish` or `Answer` at once, which would
 * end every run after one step. So the weights make chosen characters (by default `n` and `f`, i.e. the
 * `n` of `Answer` and the `f` of `finish`) practically never sampled where the grammar leaves a choice:
 * one embedding dimension is a large constant that no layer writes to, and those tokens' output rows are
 * strongly negative on it. With the default, runs go on until their step limit (what tests and the prefix
 * benchmark need); pass `discourage: ''` for an unsteered model.
 *
 * Usage: `node --import tsx scripts/make-tiny-gguf.ts [out.gguf]` (default: {@link DEFAULT_TINY_GGUF_PATH}),
 * or `npm run model:tiny`; from code, {@link ensureTinyGguf}.
 *
 * @module
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from './lib/mulberry32.js';

/**
 * Where tests and benchmarks keep the tiny model: the system temp folder, outside the repository. The
 * version in the name changes whenever the file's contents would.
 */
export const DEFAULT_TINY_GGUF_PATH = join(tmpdir(), 'taoloop-tiny-model', 'tiny-llama-v3.gguf');

const EMBD = 64;
const LAYERS = 2;
const HEADS = 4;
const FF = 128;
const CONTEXT = 4096;
const ALIGNMENT = 32;
const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;
const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** GGUF metadata value types (gguf.md, `gguf_metadata_value_type`). */
const T = { U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
/** `ggml_type` of f32 tensors. */
const GGML_F32 = 0;

type MetaValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'i32s'; value: readonly number[] };

/** Growable little-endian byte writer. */
class Writer {
  private buffer = Buffer.alloc(1 << 20);
  length = 0;
  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const next = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
  u32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeUInt32LE(value, this.length);
  }
  i32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeInt32LE(value, this.length);
  }
  u64(value: number): void {
    this.reserve(8);
    this.length = this.buffer.writeBigUInt64LE(BigInt(value), this.length);
  }
  f32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeFloatLE(value, this.length);
  }
  bytes(data: Uint8Array): void {
    this.reserve(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
  }
  string(value: string): void {
    const data = Buffer.from(value, 'utf8');
    this.u64(data.length);
    this.bytes(data);
  }
  pad(alignment: number): void {
    const padding = (alignment - (this.length % alignment)) % alignment;
    this.bytes(new Uint8Array(padding));
  }
  result(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function writeMeta(w: Writer, key: string, meta: MetaValue): void {
  w.string(key);
  switch (meta.type) {
    case 'u32':
      w.u32(T.U32);
      w.u32(meta.value);
      break;
    case 'f32':
      w.u32(T.F32);
      w.f32(meta.value);
      break;
    case 'bool':
      w.u32(T.BOOL);
      w.bytes(Uint8Array.of(meta.value ? 1 : 0));
      break;
    case 'string':
      w.u32(T.STRING);
      w.string(meta.value);
      break;
    case 'strings':
      w.u32(T.ARRAY);
      w.u32(T.STRING);
      w.u64(meta.value.length);
      for (const item of meta.value) w.string(item);
      break;
    case 'i32s':
      w.u32(T.ARRAY);
      w.u32(T.I32);
      w.u64(meta.value.length);
      for (const item of meta.value) w.i32(item);
      break;
    default:
      meta satisfies never;
  }
}

/** GPT-2's byte-to-unicode table: printable bytes map to themselves, the rest to U+0100 and up. */
function byteAlphabet(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let next = 256;
  return Array.from({ length: 256 }, (_, b) => String.fromCodePoint(printable(b) ? b : next++));
}

/** Bytes the model may generate: tab, newline and printable ASCII. */
const generable = (byte: number) => byte === 9 || byte === 10 || (byte >= 32 && byte <= 126);

/**
 * The vocabulary: the 256 byte tokens, one merge (`Ġt`), then the control tokens. Byte tokens other than
 * tab, newline and printable ASCII are typed control (3): they still tokenize any input, but their piece is
 * empty when detokenized, so a grammar never lets the model generate them. That keeps generated text valid
 * UTF-8, and text that re-tokenizes to exactly the generated tokens (what prefix reuse relies on).
 */
function vocabulary(): { tokens: string[]; types: number[] } {
  const bytes = byteAlphabet();
  const tokens = [...bytes, 'Ġt', ...SPECIAL_TOKENS];
  const types = tokens.map((_, i) => (i < 256 ? (generable(i) ? 1 : 5) : i === 256 ? 1 : 3));
  return { tokens, types };
}

interface Tensor {
  name: string;
  /** ggml order: `dims[0]` is the fastest-varying (row length). */
  dims: number[];
  fill: 'ones' | 'random';
}

function tensors(vocab: number): Tensor[] {
  const list: Tensor[] = [
    { name: 'token_embd.weight', dims: [EMBD, vocab], fill: 'random' },
    { name: 'output_norm.weight', dims: [EMBD], fill: 'ones' },
    { name: 'output.weight', dims: [EMBD, vocab], fill: 'random' },
  ];
  for (let i = 0; i < LAYERS; i++) {
    list.push(
      { name: `blk.${i}.attn_norm.weight`, dims: [EMBD], fill: 'ones' },
      { name: `blk.${i}.attn_q.weight`, dims: [EMBD, EMBD], fill: 'random' },
      { name: `blk.${i}.attn_k.weight`, dims: [EMBD, EMBD], fill: 'random' },
      { name: `blk.${i}.attn_v.weight`, dims: [EMBD, EMBD], fill: 'random' },
      { name: `blk.${i}.attn_output.weight`, dims: [EMBD, EMBD], fill: 'random' },
      { name: `blk.${i}.ffn_norm.weight`, dims: [EMBD], fill: 'ones' },
      { name: `blk.${i}.ffn_gate.weight`, dims: [EMBD, FF], fill: 'random' },
      { name: `blk.${i}.ffn_up.weight`, dims: [EMBD, FF], fill: 'random' },
      { name: `blk.${i}.ffn_down.weight`, dims: [FF, EMBD], fill: 'random' },
    );
  }
  return list;
}

/** Options for {@link tinyGgufBytes} and {@link ensureTinyGguf}. */
export interface TinyGgufOptions {
  /** Seed of the weight generator. @default 42 */
  seed?: number;
  /** Characters the model should practically never generate when it has a choice. @default 'nf' */
  discourage?: string;
  /** `tokenizer.ggml.add_bos_token`: whether the model wants a BOS token before every input. @default false */
  addBos?: boolean;
  /** `llama.context_length`, in tokens. @default 4096 */
  contextLength?: number;
}

/** The steering dimension's value in every token embedding (see the module comment). */
const STEER_EMBEDDING = 2;
/** What discouraged tokens' output rows hold in the steering dimension. */
const STEER_OUTPUT = -80;

/** Random weights, then the steering: dimension 0 constant in embeddings, never written by a layer. */
function tensorData(tensor: Tensor, next: () => number, discourage: string): Float32Array {
  const count = tensor.dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = tensor.fill === 'ones' ? 1 : (next() * 2 - 1) * 0.5;
  const rowLength = tensor.dims[0] ?? 1;
  if (tensor.name === 'token_embd.weight') {
    for (let row = 0; row < count / rowLength; row++) data[row * rowLength] = STEER_EMBEDDING;
  } else if (tensor.name.endsWith('attn_output.weight') || tensor.name.endsWith('ffn_down.weight')) {
    data.fill(0, 0, rowLength); // output row 0: the layers never change dimension 0
  } else if (tensor.name === 'output.weight') {
    // Rows 0-255 are the byte tokens, so row b is the character with code b (ASCII only).
    for (let row = 0; row < count / rowLength; row++) {
      const discouraged = row < 128 && discourage.includes(String.fromCharCode(row));
      data[row * rowLength] = discouraged ? STEER_OUTPUT : 0;
    }
  }
  return data;
}

/**
 * Builds the tiny model's bytes.
 */
export function tinyGgufBytes(options: TinyGgufOptions = {}): Buffer {
  const seed = options.seed ?? 42;
  const discourage = options.discourage ?? 'nf';
  const { tokens, types } = vocabulary();
  const endOfTurn = tokens.indexOf('<|im_end|>');
  const meta: [string, MetaValue][] = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'taoloop tiny random llama' }],
    ['general.alignment', { type: 'u32', value: ALIGNMENT }],
    ['llama.context_length', { type: 'u32', value: options.contextLength ?? CONTEXT }],
    ['llama.embedding_length', { type: 'u32', value: EMBD }],
    ['llama.block_count', { type: 'u32', value: LAYERS }],
    ['llama.feed_forward_length', { type: 'u32', value: FF }],
    ['llama.attention.head_count', { type: 'u32', value: HEADS }],
    ['llama.attention.head_count_kv', { type: 'u32', value: HEADS }],
    ['llama.rope.dimension_count', { type: 'u32', value: EMBD / HEADS }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.vocab_size', { type: 'u32', value: tokens.length }],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'qwen2' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: types }],
    ['tokenizer.ggml.merges', { type: 'strings', value: ['Ġ t'] }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: tokens.indexOf('<|endoftext|>') }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: endOfTurn }],
    ['tokenizer.ggml.padding_token_id', { type: 'u32', value: tokens.indexOf('<|endoftext|>') }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: options.addBos ?? false }],
    ['tokenizer.chat_template', { type: 'string', value: CHAT_TEMPLATE }],
  ];
  const list = tensors(tokens.length);
  const w = new Writer();
  w.bytes(Buffer.from('GGUF', 'ascii'));
  w.u32(3);
  w.u64(list.length);
  w.u64(meta.length);
  for (const [key, value] of meta) writeMeta(w, key, value);
  let offset = 0;
  for (const tensor of list) {
    w.string(tensor.name);
    w.u32(tensor.dims.length);
    for (const dim of tensor.dims) w.u64(dim);
    w.u32(GGML_F32);
    w.u64(offset);
    const bytes = tensor.dims.reduce((a, b) => a * b, 1) * 4;
    offset += Math.ceil(bytes / ALIGNMENT) * ALIGNMENT;
  }
  w.pad(ALIGNMENT);
  const next = mulberry32(seed);
  for (const tensor of list) {
    for (const value of tensorData(tensor, next, discourage)) w.f32(value);
    w.pad(ALIGNMENT);
  }
  return w.result();
}

/**
 * Writes the tiny model to `path` (creating folders) unless a file is already there, and returns the path.
 * The file is written under a temporary name and renamed, so a crash never leaves a half-written model.
 *
 * @param path @default DEFAULT_TINY_GGUF_PATH (built with the default options)
 */
export function ensureTinyGguf(path: string = DEFAULT_TINY_GGUF_PATH, options: TinyGgufOptions = {}): string {
  if (existsSync(path)) return path;
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, tinyGgufBytes(options));
  renameSync(temporary, path);
  return path;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? DEFAULT_TINY_GGUF_PATH);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, tinyGgufBytes());
  process.stderr.write(`wrote ${out}\n`);
}
