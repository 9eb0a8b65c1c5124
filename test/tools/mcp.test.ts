import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { runAgent } from '../../src/agent/loop.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { McpConnectionError, type McpToolSet, mcpTools } from '../../src/tools/mcp.js';
import { jsonInputHint, jsonSchemaAdapter } from '../../src/tools/mcp-schema.js';
import { createToolRouter } from '../../src/tools/router.js';
// @ts-expect-error: a plain JS fixture without type declarations.
import { createFixtureServer } from '../fixtures/mcp-server.mjs';

const FIXTURE = 'test/fixtures/mcp-server.mjs';
const dir = mkdtempSync(join(tmpdir(), 'taoloop-mcp-'));
const notesFile = join(dir, 'notes.txt');
const pidFile = join(dir, 'server.pid');
const readNotes = () => (existsSync(notesFile) ? readFileSync(notesFile, 'utf8') : '');

let mcp: McpToolSet;
before(async () => {
  mcp = await mcpTools({
    command: 'node',
    args: [FIXTURE],
    env: { NOTES_FILE: notesFile, PID_FILE: pidFile },
  });
});
after(async () => {
  await mcp.close();
  rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string) => mcp.tools.find((t) => t.name === name)!;

describe('mcpTools over stdio', () => {
  test('lists the tools with names, effects, descriptions, hints and the raw JSON schema', () => {
    assert.deepEqual(
      mcp.tools.map((t) => [t.name, t.effects, t.inputHint, t.description]),
      [
        ['add', 'read', '{"a": number, "b": number}', 'Adds two numbers. Returns the sum.'],
        ['save_note', 'external', 'text', 'Appends a note to the notes file.'],
        ['divide', 'read', '{"a": number, "b": number}', 'Divides a by b.'],
        ['chart_render', 'read', '', 'Renders a chart.'],
        ['wait', 'read', '{"ms": number}', 'Waits ms milliseconds.'],
      ],
    );
    assert.equal(tool('chart_render').mcpName, 'chart.render');
    assert.deepEqual(tool('add').inputJsonSchema, {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    assert.ok(tool('add').inputSchema, 'JSON tools carry a Standard Schema');
    assert.equal(tool('save_note').inputSchema, undefined, 'a one-string tool takes text');
  });

  test('tools run through the router: JSON input, text input, no input, mixed content', async () => {
    const router = createToolRouter(mcp.tools);
    assert.equal((await router.call('add', '{"a": 2, "b": 3}')).observation, '5');
    assert.equal((await router.call('chart_render', '')).observation, 'chart ready\n[image: image/png]');
    const refused = await router.call('chart_render', 'now');
    assert.equal(refused.observation, 'Error: chart_render takes no input. Write chart_render[]');
  });

  test('a missing required field is refused before the call, naming the field', async () => {
    const router = createToolRouter(mcp.tools);
    const outcome = await router.call('add', '{"a": 2}');
    assert.equal(outcome.ok, false);
    assert.equal(outcome.observation, 'Error: invalid input for add: missing required property "b"');
    const wrongType = await router.call('add', '{"a": 2, "b": "3"}');
    assert.equal(wrongType.observation, 'Error: invalid input for add: b: expected number, got string');
    const noText = await router.call('save_note', '{"note": "x"}');
    assert.equal(noText.observation, 'Error: invalid input for save_note: missing required property "text"');
  });

  test("the server's isError result becomes an Error observation", async () => {
    const outcome = await createToolRouter(mcp.tools).call('divide', '{"a": 1, "b": 0}');
    assert.deepEqual([outcome.ok, outcome.observation], [false, 'Error: cannot divide by zero']);
  });

  test('the loop calls a read-only tool without approval and shows its result', async () => {
    const model = scriptedModel([
      'Thought: add them\nAction: add[{"a": 2, "b": 3}]',
      'Thought: done\nAnswer: 5',
    ]);
    const result = await runAgent({ model, question: '2 + 3?', tools: mcp.tools });
    assert.equal(result.status, 'answered');
    assert.equal(result.steps[0]!.observation?.text, '5');
    assert.equal(result.steps[0]!.observation?.approval, undefined);
    assert.match(
      model.requests[0]!.messages[0]!.content,
      /- add\[\{"a": number, "b": number\}\]: Adds two numbers/,
    );
    model.assertAllUsed();
  });

  test('save_note needs approval: approved, the note is written (text or JSON input)', async () => {
    const before = readNotes();
    const model = scriptedModel([
      'Thought: note it\nAction: save_note[buy milk]',
      'Thought: and this\nAction: save_note[{"text": "call Ana"}]',
      'Thought: done\nAnswer: saved',
    ]);
    const asked: string[] = [];
    const result = await runAgent({
      model,
      question: 'remember',
      tools: mcp.tools,
      approve: (request) => {
        asked.push(`${request.tool} ${request.effects} ${request.input}`);
        return { type: 'approve' };
      },
    });
    assert.deepEqual(asked, ['save_note external buy milk', 'save_note external {"text": "call Ana"}']);
    assert.deepEqual(
      result.steps.slice(0, 2).map((s) => s.observation?.text),
      ['saved', 'saved'],
    );
    assert.equal(readNotes(), `${before}buy milk\ncall Ana\n`);
  });

  test('save_note without an approver is rejected and nothing is written', async () => {
    const before = readNotes();
    const model = scriptedModel([
      'Thought: note it\nAction: save_note[sell milk]',
      'Thought: ok\nAnswer: no',
    ]);
    const result = await runAgent({ model, question: 'remember', tools: mcp.tools });
    assert.match(result.steps[0]!.observation!.text, /^The user rejected this action/);
    assert.equal(readNotes(), before);
  });

  test('a slow call is cancelled at the router deadline', async () => {
    const outcome = await createToolRouter(mcp.tools).call('wait', '{"ms": 5000}', { timeoutMs: 200 });
    assert.deepEqual([outcome.ok, outcome.observation], [false, 'Error: wait timed out after 200 ms.']);
    // The server was told to cancel, so the connection is still good for the next call.
    assert.equal((await createToolRouter(mcp.tools).call('add', '{"a": 1, "b": 1}')).observation, '2');
  });
});

describe('mcpTools options and failures', () => {
  test('prefix and timeoutMs apply to every tool; close() ends the child process', async () => {
    const pids = join(dir, 'second.pid');
    const set = await mcpTools(
      { command: 'node', args: [FIXTURE], env: { PID_FILE: pids } },
      { prefix: 'calc', timeoutMs: 5000 },
    );
    assert.deepEqual(
      set.tools.map((t) => t.name),
      ['calc_add', 'calc_save_note', 'calc_divide', 'calc_chart_render', 'calc_wait'],
    );
    assert.ok(set.tools.every((t) => t.timeoutMs === 5000));
    const pid = Number(readFileSync(pids, 'utf8'));
    assert.equal(isAlive(pid), true);
    await set.close();
    await set.close(); // a second close is harmless
    for (let i = 0; i < 50 && isAlive(pid); i += 1) await sleep(20);
    assert.equal(isAlive(pid), false);
    const late = await createToolRouter(set.tools).call('calc_add', '{"a": 1, "b": 1}');
    assert.match(late.observation, /^Error: /);
  });

  test('a command that does not exist: a connection error naming it', async () => {
    await assert.rejects(
      mcpTools({ command: 'taoloop-no-such-mcp-server', args: ['--x'] }),
      (error: Error) => {
        assert.ok(error instanceof McpConnectionError);
        assert.match(
          error.message,
          /^Could not connect to the MCP server "taoloop-no-such-mcp-server --x": .*ENOENT/,
        );
        return true;
      },
    );
  });

  test('a server that exits at start: the error quotes the end of its stderr', async () => {
    const failing = mcpTools({ command: 'node', args: [FIXTURE], env: { FAIL_AT_START: '1' } });
    await assert.rejects(failing, (error: Error) => {
      assert.ok(error instanceof McpConnectionError);
      assert.match(error.message, /MCP server "node test\/fixtures\/mcp-server.mjs"/);
      assert.match(error.message, /fixture: refusing to start \(FAIL_AT_START is set\)/);
      return true;
    });
  });

  test('an invalid or unreachable URL: a connection error naming it', async () => {
    await assert.rejects(mcpTools({ url: 'not a url' }), /MCP server at not a url: not a valid URL/);
    await assert.rejects(
      mcpTools({ url: 'http://127.0.0.1:9/mcp' }, { timeoutMs: 3000 }),
      /^McpConnectionError: Could not connect to the MCP server at http:\/\/127\.0\.0\.1:9\/mcp: .*\(Streamable HTTP\); .*\(HTTP\+SSE\)/,
    );
  });
});

describe('mcpTools over Streamable HTTP', () => {
  let server: Server;
  let url: string;
  const seen: IncomingHttpHeaders[] = [];
  before(async () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await createFixtureServer({ notesFile }).connect(transport);
    server = createServer((req, res) => {
      seen.push(req.headers);
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('lists and calls tools, sending the given headers', async () => {
    const set = await mcpTools({ url, headers: { Authorization: 'Bearer t0ken' } }, { prefix: 'web' });
    try {
      assert.equal(set.tools[0]!.name, 'web_add');
      assert.equal(
        (await createToolRouter(set.tools).call('web_add', '{"a": 40, "b": 2}')).observation,
        '42',
      );
      assert.ok(seen.length > 0 && seen.every((h) => h.authorization === 'Bearer t0ken'));
    } finally {
      await set.close();
    }
  });
});

describe('JSON Schema adapter', () => {
  const schema = {
    type: 'object',
    properties: {
      mode: { enum: ['fast', 'slow'] },
      tags: { type: 'array', items: { type: 'string' } },
      limit: { type: ['integer', 'null'] },
      nested: { type: 'object', properties: { on: { type: 'boolean' } }, additionalProperties: false },
    },
    required: ['mode'],
  };
  const validate = (value: unknown) => {
    const result = jsonSchemaAdapter(schema)['~standard'].validate(value);
    assert.ok(!(result instanceof Promise), 'validation is synchronous');
    return result;
  };
  const problems = (value: unknown) => validate(value).issues?.map((i) => [i.path?.join('.'), i.message]);

  test('valid values come back unchanged', () => {
    const value = { mode: 'fast', tags: ['a'], limit: null, nested: { on: true }, extra: 1 };
    assert.deepEqual(validate(value), { value });
  });

  test('each problem is an issue with its path', () => {
    assert.deepEqual(problems({ mode: 'medium', tags: ['a', 2], limit: 1.5, nested: { on: true, off: 0 } }), [
      ['mode', 'must be one of "fast", "slow"'],
      ['tags.1', 'expected string, got number'],
      ['limit', 'expected integer or null, got number'],
      ['nested', 'unknown property "off" (known: "on")'],
    ]);
    assert.deepEqual(problems([]), [['', 'expected object, got array']]);
    assert.deepEqual(problems({}), [['', 'missing required property "mode"']]);
  });

  test('exposes the JSON schema (Standard JSON Schema) and a short hint', () => {
    const adapter = jsonSchemaAdapter(schema);
    assert.deepEqual(adapter['~standard'].jsonSchema.input({ target: 'draft-2020-12' }), schema);
    assert.throws(() => adapter['~standard'].jsonSchema.input({ target: 'openapi-3.0' }), /not supported/);
    assert.equal(
      jsonInputHint(schema),
      '{"mode": value, "tags"?: array, "limit"?: integer | null, "nested"?: object}',
    );
    assert.equal(jsonInputHint(schema, 20), 'JSON object');
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
