/**
 * The agent behind `useChat`: a route handler that answers the AI SDK's UI message stream.
 *
 * In Next.js (app/api/chat/route.ts) it is one line:
 *   export const POST = (request: Request) => createAgentUIStreamResponse({ model, tools, request });
 * and on the page: `const { messages, sendMessage } = useChat();` (from '@ai-sdk/react'); each assistant
 * message has reasoning parts (thoughts), `tool-calculator` parts (input, then output) and the answer text.
 *
 * Here it runs on Node's own http server so it works without a framework:
 * Run: TAOLOOP_MODEL=openai:gpt-4o-mini PORT=3000 npx tsx examples/app/chat-route.ts
 * then POST { "messages": [UIMessage...] } to http://127.0.0.1:3000/api/chat.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculator, createAgentUIStreamResponse, resolveModelSpec } from 'taoloop';

const model = await resolveModelSpec(process.env.TAOLOOP_MODEL ?? 'openai:gpt-4o-mini');
const tools = [calculator];

/** The route handler, as a framework would call it. */
export const POST = (request: Request) => createAgentUIStreamResponse({ model, tools, request, maxSteps: 6 });

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/api/chat') {
    res.writeHead(404).end();
    return;
  }
  // Node request -> fetch Request (closing the connection aborts the run) -> Response -> Node response.
  let body = '';
  for await (const chunk of req) body += chunk;
  const closed = new AbortController();
  res.on('close', () => closed.abort());
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: closed.signal,
  });
  const response = await POST(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`);
});
