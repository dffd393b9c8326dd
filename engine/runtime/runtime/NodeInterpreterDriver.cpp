#include "runtime/NodeInterpreterDriver.h"

namespace csm {

namespace {

// Runs as `node -e`, so its own frames are in "[eval]". A cell is evaluated by V8's REPL mode,
// through an inspector session of the process itself (as a browser's console evaluates): that
// is what gives top-level await with let and const that outlive the cell, declarations that a
// later cell may repeat, and the completion value; Node's own REPL module rewrites await cells
// instead, and cannot declare a name twice. --expose-internals is for the parser Node ships
// (acorn), which finds a cell's import() calls: code the inspector compiled has no module loader.
constexpr char kDriverSource[] = R"js((() => {
  // Code Sandbox: a JavaScript session (the launcher's --session). Each cell arrives on stdin (an
  // 8-byte length, the cell's 8-byte tag, then the code); after it, "e", the tag and its status go
  // to the launcher on CSM_READY_FD, which ends a cell only on its own tag. The cells' own stdin
  // is empty.
  'use strict';
  const fs = require('fs');
  const inspector = require('inspector');
  const net = require('net');
  const util = require('util');
  const vm = require('vm');

  // The launcher's pipes move to descriptors of our own, which child processes do not inherit,
  // and fd 0 becomes /dev/null: nothing a cell starts can read the next cell or report for it.
  const reopen = (fd, flags) => {
    try {
      const copy = fs.openSync(`/proc/self/fd/${fd}`, flags);
      fs.closeSync(fd);
      return copy;
    } catch {
      return fd;
    }
  };
  const control = reopen(Number(process.env.CSM_READY_FD), fs.constants.O_WRONLY);
  delete process.env.CSM_READY_FD;
  const input = reopen(0, fs.constants.O_RDONLY);
  if (input !== 0) {
    fs.openSync('/dev/null', fs.constants.O_RDONLY);
  } else { // no /proc: at least process.stdin does not read the cells
    const empty = new (require('stream').Readable)({ read() { this.push(null); } });
    Object.defineProperty(process, 'stdin', { value: empty });
  }
  // As `node -` has them; an empty execArgv also keeps child_process.fork() from running this.
  process.argv.splice(1, Infinity, '-');
  process.execArgv = [];

  const session = new inspector.Session();
  session.connect();

  // import() in a cell becomes $mport() (as long, so that columns stay right), which this
  // script, compiled by Node, can do.
  Object.defineProperty(globalThis, '$mport', { value: (specifier) => import(specifier) });
  let acorn = null;
  try {
    acorn = require('internal/deps/acorn/acorn/dist/acorn');
  } catch {}
  const withLoadableImports = (source) => {
    if (!acorn || !/\bimport\b/.test(source)) return source;
    const starts = [];
    const visit = (node) => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!node || typeof node.type !== 'string') return;
      if (node.type === 'ImportExpression') starts.push(node.start);
      for (const key of Object.keys(node)) {
        if (node[key] && typeof node[key] === 'object') visit(node[key]);
      }
    };
    try {
      visit(acorn.parse(source, { ecmaVersion: 'latest', allowAwaitOutsideFunction: true }));
    } catch {
      return source; // V8 says what is wrong with it
    }
    for (const start of starts.sort((a, b) => b - a))
      source = `${source.slice(0, start)}$mport${source.slice(start + 6)}`;
    return source;
  };

  // A value the inspector holds (a RemoteObject), as the value itself.
  let taken;
  Object.defineProperty(globalThis, Symbol.for('code-sandbox.take'), {
    value: (value) => {
      taken = value;
    },
  });
  const valueOf = (remote) => {
    if (!remote) return undefined;
    if (remote.objectId) {
      taken = undefined;
      session.post('Runtime.callFunctionOn', {
        objectId: remote.objectId,
        functionDeclaration:
          "function () { 'use strict'; globalThis[Symbol.for('code-sandbox.take')](this); }",
      });
      return taken;
    }
    if (remote.unserializableValue !== undefined) {
      const text = remote.unserializableValue;
      return remote.type === 'bigint' ? BigInt(text.slice(0, -1)) : Number(text);
    }
    return remote.value;
  };

  const sources = new Map();
  let printed = 0;
  const print = (stream, text) => {
    printed += 1;
    stream.write(`${text}\n`);
  };
  const inspect = (value) => util.inspect(value, { showProxy: true });
  const shown = (value) => {
    try {
      return inspect(value);
    } catch {
      return '[a value that cannot be shown]';
    }
  };
  // A thrown value as node prints an uncaught one: for an error, the line of the cell it comes
  // from, then its stack (without this driver's frames) and its other properties.
  const describe = (thrown, details, cellName) => {
    if (!(util.types.isNativeError(thrown) || thrown instanceof Error))
      return `Uncaught ${shown(thrown)}`;
    let header = '';
    try {
      if (typeof thrown.stack === 'string') {
        const lines = thrown.stack.split('\n');
        const driver = /^\s+at .*(\[eval\]|\bnode:(inspector|vm)\b)/;
        const ours = lines.findIndex((line) => driver.test(line));
        if (ours >= 0) thrown.stack = lines.slice(0, ours).join('\n');
      }
      const frame = /(<cell-\d+>):(\d+):(\d+)/.exec(thrown.stack);
      let [name, line, column] = frame ? [frame[1], +frame[2], +frame[3]] : [];
      if (!frame && details && thrown.name === 'SyntaxError')
        [name, line, column] = [cellName, details.lineNumber + 1, details.columnNumber + 1];
      const lines = sources.get(name);
      if (lines) {
        if (line > lines.length) // the end of input, past the cell's last line
          [line, column] = [lines.length, lines[lines.length - 1].length + 1];
        const caret = `${' '.repeat(Math.max(column - 1, 0))}^`;
        header = `${name}:${line}\n${lines[line - 1]}\n${caret}\n\n`;
      }
    } catch {}
    // An error without frames (a syntax error) reads as node prints it, not as [SyntaxError: ...].
    const text = shown(thrown);
    return header + (text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text);
  };

  // The running cell: {name, tag, starting, early, status}, status set once it ends.
  let current = null;
  let count = 0;
  const queue = [];
  // Calls `done` once what was written to stdout and stderr has gone out to the launcher.
  const flushed = (done) => {
    const before = printed;
    let left = 2;
    const one = () => {
      if (--left === 0) (printed === before ? done : () => flushed(done))();
    };
    for (const stream of [process.stdout, process.stderr]) {
      try {
        stream.write('', one);
      } catch {
        one();
      }
    }
  };
  const finish = (cell, status) => {
    if (cell.status !== undefined) return;
    cell.status = status;
    session.post('Runtime.releaseObjectGroup', { objectGroup: 'cell' });
    // A turn of the event loop first: a promise the cell rejected and left unhandled is
    // reported (and fails the cell) before the cell ends.
    setImmediate(() =>
      flushed(() => {
        const report = Buffer.alloc(13);
        report.write('e');
        cell.tag.copy(report, 1);
        report.writeUInt32BE(cell.status, 9);
        fs.writeSync(control, report);
        current = null;
        next();
      }));
  };
  const settle = (cell, error, reply) => {
    if (cell.status !== undefined) return; // it was interrupted meanwhile
    // An answer that comes while the evaluation starts waits for its end: an interrupt then
    // makes both the inspector answer (in node 22) and the script fail, and the interrupt tells.
    if (cell.starting) {
      cell.early = () => settle(cell, error, reply);
      return;
    }
    try {
      if (error) {
        print(process.stderr, String(error.message));
      } else if (reply.exceptionDetails) {
        const details = reply.exceptionDetails;
        print(process.stderr, describe(valueOf(details.exception), details, cell.name));
      } else {
        const value = valueOf(reply.result);
        if (value !== undefined) print(process.stdout, inspect(value));
        return finish(cell, 0);
      }
    } catch (failure) {
      print(process.stderr, describe(failure));
    }
    finish(cell, 1);
  };
  // An interrupt can stop a cell's code anywhere, node's own included: in the middle of a
  // console.log, after its bytes went out but before the stream took note, the stream would
  // wait for that write forever, and keep all later output to itself. Finish the write for it.
  const unstick = (stream) => {
    const state = stream._writableState;
    const handle = stream._handle;
    if (state && state.writing && typeof state.onwrite === 'function' && handle &&
        handle.writeQueueSize === 0)
      state.onwrite(null);
  };
  const interrupt = (cell, awaiting) => {
    print(process.stderr, awaiting
      ? 'Interrupted (SIGINT) while awaiting; what the cell awaited was not cancelled.'
      : 'Interrupted (SIGINT).');
    finish(cell, 130);
  };

  // The evaluation starts inside a vm script that breaks on SIGINT: the launcher's interrupt
  // stops a cell's synchronous code (a busy loop too), and leaves the session as it was. (Node
  // sets that watch up and takes it down around the script: a SIGINT in those microseconds is
  // lost, and the host, after its grace period, ends the session.)
  let evaluate = null;
  const runner = vm.createContext({ run: () => evaluate() });
  const start = new vm.Script('run()');
  const next = () => {
    if (current || queue.length === 0) return;
    const { source, tag } = queue.shift();
    count += 1;
    const cell = (current = { name: `<cell-${count}>`, tag, starting: true, status: undefined });
    sources.set(cell.name, source.split(/\r\n|[\n\r\u2028\u2029]/));
    // A script's name cannot have a space: "<cell-3>", not "<cell 3>".
    const expression = `${withLoadableImports(source)}\n//# sourceURL=${cell.name}`;
    evaluate = () =>
      session.post(
        'Runtime.evaluate',
        { expression, replMode: true, awaitPromise: true, objectGroup: 'cell' },
        (error, reply) => settle(cell, error, reply));
    try {
      start.runInContext(runner, { breakOnSigint: true });
      cell.starting = false;
      if (cell.early) cell.early();
    } catch (error) {
      cell.starting = false;
      if (error && error.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') {
        unstick(process.stdout);
        unstick(process.stderr);
        return interrupt(cell, false);
      }
      print(process.stderr, describe(error));
      finish(cell, 1);
    }
  };
  // A SIGINT outside a cell's synchronous code: a cell that awaits ends (what it awaits goes on);
  // between cells, nothing happens.
  process.on('SIGINT', () => {
    if (current && current.status === undefined) interrupt(current, true);
  });
  // An error nobody caught (a timer's, a promise's nobody handled) is shown; it fails the
  // running cell, as it would end a program run on its own.
  const uncaught = (what) => (error) => {
    print(process.stderr, `${what}:\n${describe(error)}`);
    if (!current) return;
    if (current.status === undefined) finish(current, 1);
    else if (current.status === 0) current.status = 1;
  };
  process.on('uncaughtException', uncaught('Uncaught exception'));
  process.on('unhandledRejection', uncaught('Unhandled promise rejection'));

  // Read as it comes, so that earlier cells' timers and promises go on between cells.
  let pending = Buffer.alloc(0);
  const cells = new net.Socket({ fd: input, readable: true, writable: false });
  cells.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 16) {
      const size = Number(pending.readBigUInt64BE(0));
      if (pending.length < 16 + size) break;
      queue.push({
        tag: Buffer.from(pending.subarray(8, 16)),
        source: pending.subarray(16, 16 + size).toString('utf8'),
      });
      pending = pending.subarray(16 + size);
    }
    next();
  });
  // The launcher ended the session.
  cells.on('end', () => process.exit(0));
  cells.on('error', () => process.exit(0));
  fs.writeSync(control, 'r');
})();
)js";

} // namespace

QStringList NodeInterpreterDriver::command()
{
    return {QStringLiteral("node"), QStringLiteral("--expose-internals"), QStringLiteral("-e"),
            source()};
}

QString NodeInterpreterDriver::source()
{
    return QString::fromUtf8(kDriverSource);
}

} // namespace csm
