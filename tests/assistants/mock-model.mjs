// A mock model endpoint on 127.0.0.1 that plays the model for one agent CLI, in that client's own
// wire protocol: to the first request that offers the sandbox's run_python_code tool it answers
// with a call to that tool; the request that carries the tool's result is recorded as it came
// (that is what the client forwards to a model) and answered with a final text. Any other request
// (titles, routing, token counts) gets a short harmless answer, so that no client depends on a
// real model. Only node's http module: the test must not need a model SDK.
import http from 'node:http';

// Each protocol: how to find the tools a request offers, whether it carries our tool's result,
// and how to write the answers (all streamed as SSE, the way each client asks for them).
const protocols = {
    // Claude Code: Anthropic Messages API, POST /v1/messages (stream: true).
    anthropic: {
        toolNames: (body) => (body.tools ?? []).map((tool) => tool.name),
        carriesResult: (body) =>
            (body.messages ?? []).some(
                (message) =>
                    Array.isArray(message.content) &&
                    message.content.some((block) => block.type === 'tool_result'),
            ),
        isModelCall: (request) => /^\/v1\/messages(\?|$)/.test(request.url),
        extraRoute: (request) =>
            request.url.startsWith('/v1/messages/count_tokens') ? { input_tokens: 10 } : null,
        toolCall: (body, name, args, response) =>
            anthropicStream(body, response, 'tool_use', [
                {
                    start: { type: 'tool_use', id: 'toolu_csm_1', name, input: {} },
                    delta: { type: 'input_json_delta', partial_json: JSON.stringify(args) },
                },
            ]),
        text: (body, text, response) =>
            anthropicStream(body, response, 'end_turn', [
                {
                    start: { type: 'text', text: '' },
                    delta: { type: 'text_delta', text },
                },
            ]),
    },
    // Codex CLI: OpenAI Responses API, POST /v1/responses (stream: true).
    responses: {
        toolNames: (body) => (body.tools ?? []).flatMap(responsesToolNames),
        carriesResult: (body) =>
            (body.input ?? []).some(
                (item) => item.call_id === 'call_csm_1' && item.type !== 'function_call',
            ),
        isModelCall: (request) => request.url.startsWith('/v1/responses'),
        extraRoute: (request) => (request.url.startsWith('/v1/models') ? { data: [] } : null),
        toolCall: (body, name, args, response) =>
            responsesStream(response, {
                type: 'function_call',
                id: 'fc_csm_1',
                call_id: 'call_csm_1',
                ...(responsesNamespaces.get(name) ?? { name }),
                arguments: JSON.stringify(args),
                status: 'completed',
            }),
        text: (body, text, response) =>
            responsesStream(response, {
                type: 'message',
                id: 'msg_csm_' + Date.now(),
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text, annotations: [] }],
            }),
    },
    // Gemini CLI: Gemini API, POST /v1beta/models/MODEL:streamGenerateContent?alt=sse (and
    // :generateContent for its own JSON side questions, :countTokens).
    gemini: {
        toolNames: (body) =>
            (body.tools ?? []).flatMap((tool) =>
                (tool.functionDeclarations ?? []).map((declaration) => declaration.name),
            ),
        carriesResult: (body) =>
            (body.contents ?? []).some((content) =>
                (content.parts ?? []).some((part) => part.functionResponse),
            ),
        isModelCall: (request) => /:(stream)?[gG]enerateContent/.test(request.url),
        extraRoute: (request) => (/:countTokens/.test(request.url) ? { totalTokens: 10 } : null),
        toolCall: (body, name, args, response, request) =>
            geminiAnswer(request, response, { functionCall: { name, args } }),
        text: (body, text, response, request) =>
            geminiAnswer(
                request,
                response,
                // Its side questions (next speaker, model routing) ask for JSON.
                body.generationConfig?.responseMimeType === 'application/json'
                    ? {
                          text: JSON.stringify({
                              reasoning: 'mock model',
                              next_speaker: 'user',
                              model_choice: 'flash',
                          }),
                      }
                    : { text },
            ),
    },
};

// Codex groups each MCP server's tools in a namespace (mcp__SERVER); the model calls them by
// their own name plus that namespace. Here they are named NAMESPACE__NAME.
const responsesNamespaces = new Map();

function responsesToolNames(tool) {
    if (tool.type !== 'namespace') return tool.name ? [tool.name] : [];
    return (tool.tools ?? []).map((inner) => {
        const qualified = `${tool.name}__${inner.name}`;
        responsesNamespaces.set(qualified, { namespace: tool.name, name: inner.name });
        return qualified;
    });
}

function sse(response) {
    response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
    });
    return (event, data) => {
        if (event) response.write(`event: ${event}\n`);
        response.write(`data: ${JSON.stringify(data)}\n\n`);
    };
}

function anthropicStream(body, response, stopReason, blocks) {
    const message = {
        id: 'msg_csm_' + Date.now(),
        type: 'message',
        role: 'assistant',
        model: body.model ?? 'mock',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
    };
    if (!body.stream) {
        message.content = blocks.map(({ start, delta }) =>
            start.type === 'text'
                ? { type: 'text', text: delta.text }
                : { ...start, input: JSON.parse(delta.partial_json) },
        );
        message.stop_reason = stopReason;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(message));
        return;
    }
    const send = sse(response);
    send('message_start', { type: 'message_start', message });
    blocks.forEach(({ start, delta }, index) => {
        send('content_block_start', { type: 'content_block_start', index, content_block: start });
        send('content_block_delta', { type: 'content_block_delta', index, delta });
        send('content_block_stop', { type: 'content_block_stop', index });
    });
    send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 5 },
    });
    send('message_stop', { type: 'message_stop' });
    response.end();
}

function responsesStream(response, item) {
    const id = 'resp_csm_' + Date.now();
    const send = sse(response);
    send('response.created', { type: 'response.created', response: { id } });
    send('response.output_item.added', {
        type: 'response.output_item.added',
        output_index: 0,
        item,
    });
    if (item.type === 'message')
        send('response.output_text.delta', {
            type: 'response.output_text.delta',
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: item.content[0].text,
        });
    send('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
    send('response.completed', {
        type: 'response.completed',
        response: {
            id,
            object: 'response',
            status: 'completed',
            output: [item],
            usage: {
                input_tokens: 10,
                input_tokens_details: { cached_tokens: 0 },
                output_tokens: 5,
                output_tokens_details: { reasoning_tokens: 0 },
                total_tokens: 15,
            },
        },
    });
    response.end();
}

function geminiAnswer(request, response, part) {
    const answer = {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
        modelVersion: 'mock',
    };
    if (/:streamGenerateContent/.test(request.url)) {
        sse(response)(null, answer);
        response.end();
        return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
}

// Starts the mock for `protocol` (anthropic, responses, gemini). `toolArguments` is what the
// model passes to run_python_code. Resolves to {url, close(), log, resultRequest, toolName}:
// `log` lists every request (method, url, what it was answered with); `resultRequest` is the
// parsed body of the request that carried the tool result (null until one came).
export function startMockModel(protocol, toolArguments) {
    const p = protocols[protocol];
    if (!p) throw new Error(`unknown protocol ${protocol}`);
    const state = { log: [], resultRequest: null, toolName: null, toolCalled: false };
    const server = http.createServer((request, response) => {
        const chunks = [];
        request.on('data', (chunk) => chunks.push(chunk));
        request.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let body = {};
            try {
                body = raw ? JSON.parse(raw) : {};
            } catch {
                body = {};
            }
            const entry = { method: request.method, url: request.url, answer: '' };
            state.log.push(entry);
            const extra = p.extraRoute(request);
            if (extra) {
                entry.answer = 'side route';
                response.writeHead(200, { 'content-type': 'application/json' });
                response.end(JSON.stringify(extra));
                return;
            }
            if (request.method !== 'POST' || !p.isModelCall(request)) {
                entry.answer = '404';
                response.writeHead(404, { 'content-type': 'application/json' });
                response.end(JSON.stringify({ error: { message: 'not mocked' } }));
                return;
            }
            const names = p.toolNames(body);
            entry.tools = `${names.length}, sandbox: ${names.filter((name) => name.includes('run_'))}`;
            if (p.carriesResult(body)) {
                entry.answer = 'final text (request recorded)';
                if (!state.resultRequest) state.resultRequest = body;
                p.text(body, 'The sandbox ran the program.', response, request);
                return;
            }
            const tool = names.find((name) => name.endsWith('run_python_code'));
            if (tool && !state.toolCalled) {
                state.toolCalled = true;
                state.toolName = tool;
                entry.answer = `tool call ${tool}`;
                p.toolCall(body, tool, toolArguments, response, request);
                return;
            }
            entry.answer = 'plain text';
            p.text(body, 'ok', response, request);
        });
    });
    return new Promise((resolve) => {
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address();
            resolve({
                url: `http://127.0.0.1:${port}`,
                close: () =>
                    new Promise((done) => {
                        server.closeAllConnections();
                        server.close(done);
                    }),
                get log() {
                    return state.log;
                },
                get resultRequest() {
                    return state.resultRequest;
                },
                get toolName() {
                    return state.toolName;
                },
            });
        });
    });
}
