#include "sandbox/NodeFetchPreload.h"

namespace csm {

QByteArray NodeFetchPreload::source()
{
    // tests/integration/tst_Egress runs it in the sandbox's own Node: fetch through the proxy,
    // and a refusal's reason in fetch's error.
    return QByteArrayLiteral(R"js(// Code Sandbox: fetch through the sandbox's egress proxy.
'use strict';
(() => {
  const proxy = process.env.HTTPS_PROXY || process.env.HTTP_PROXY;
  const symbol = Symbol.for('undici.globalDispatcher.1');
  if (!proxy || typeof fetch !== 'function' || globalThis[symbol]) return;
  const { hostname: proxyHost, port: proxyPort } = new URL(proxy);
  const net = require('net');
  const tls = require('tls');
  // The bundled undici is not a module we can require: its Agent class is the default
  // dispatcher's, which the first fetch creates (a data: URL makes no connection).
  fetch('data:,').catch(() => {});
  const Agent = globalThis[symbol] && globalThis[symbol].constructor;
  if (typeof Agent !== 'function') return;

  // NO_PROXY as curl and Python read it: "*", or names (a leading dot or not) that match
  // themselves and their subdomains, and addresses, each with an optional :port. The
  // sandbox's own loopback stays in the sandbox for fetch as for every other program.
  const bare = (host) => host.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const bypassed = (hostname, port) => {
    const host = bare(hostname);
    return (process.env.NO_PROXY || process.env.no_proxy || '').split(',').some((entry) => {
      entry = entry.trim().toLowerCase();
      if (!entry) return false;
      if (entry === '*') return true;
      const withPort = /^(\[[^\]]*\]|[^:]*):(\d+)$/.exec(entry);
      if (withPort) {
        if (Number(withPort[2]) !== Number(port)) return false;
        entry = withPort[1];
      }
      const name = bare(entry).replace(/^\./, '');
      return host === name || host.endsWith(`.${name}`);
    });
  };

  const connect = (options, callback) => {
    const https = options.protocol === 'https:';
    const port = options.port || (https ? 443 : 80);
    const host = options.hostname.includes(':') && !options.hostname.startsWith('[')
      ? `[${options.hostname}]` : options.hostname;
    const authority = `${host}:${port}`;
    let settled = false;
    const settle = (error, socket) => {
      if (settled) return;
      settled = true;
      callback(error, socket);
    };
    const servername = net.isIP(bare(options.hostname))
      ? undefined : options.servername || options.hostname;
    if (bypassed(options.hostname, port)) {
      const direct = https
        ? tls.connect({ host: bare(options.hostname), port: Number(port), servername,
                        ALPNProtocols: ['http/1.1'] })
        : net.connect(Number(port), bare(options.hostname));
      direct.once(https ? 'secureConnect' : 'connect', () => settle(null, direct));
      direct.once('error', (error) => settle(error));
      return;
    }
    const socket = net.connect(Number(proxyPort), proxyHost);
    socket.once('error', (error) => settle(error));
    socket.once('connect', () => {
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    });
    let head = Buffer.alloc(0);
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16384) {
          socket.destroy();
          settle(new Error(`the sandbox's proxy sent no answer to CONNECT ${authority}`));
        }
        return;
      }
      socket.removeListener('data', onData);
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (!/^HTTP\/1\.[01] 200/.test(statusLine)) {
        // The proxy's reason ("... is a private address") is its answer's body.
        const body = head.subarray(end + 4).toString('utf8').trim();
        socket.destroy();
        const error = new Error(`${authority}: ${body || statusLine}`);
        error.code = 'ECONNREFUSED';
        settle(error);
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      if (!https) {
        settle(null, socket);
        return;
      }
      const secure = tls.connect({ socket, servername, ALPNProtocols: ['http/1.1'] });
      secure.once('secureConnect', () => settle(null, secure));
      secure.once('error', (error) => settle(error));
    };
    socket.on('data', onData);
  };
  globalThis[symbol] = new Agent({ connect });
})();
)js");
}

} // namespace csm
