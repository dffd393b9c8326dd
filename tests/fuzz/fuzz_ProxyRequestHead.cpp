// libFuzzer target for csm::ProxyRequestHead: the bytes a sandboxed program sends to the egress
// proxy, which the program controls entirely.
//
// Every head that completes is checked against what the proxy relies on: a host and a port to
// decide on, a head no longer than what came, a forwarded request in origin form that ends its
// head once, closes the connection and carries none of the proxy's own headers. A complete head
// reads the same from exactly its own bytes, and nothing shorter completes. Any violation aborts.

#include "egress/ProxyRequestHead.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using csm::ProxyRequestHead;
using Status = ProxyRequestHead::Status;

namespace {

void check(bool condition, const char* invariant)
{
    if (condition)
        return;
    std::fprintf(stderr, "fuzz_ProxyRequestHead: invariant violated: %s\n", invariant);
    std::abort();
}

bool sameHead(const ProxyRequestHead& a, const ProxyRequestHead& b)
{
    return a.status() == b.status() && a.kind() == b.kind() && a.host() == b.host() &&
           a.port() == b.port() && a.forwardHead() == b.forwardHead() &&
           a.headBytes() == b.headBytes();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray received(reinterpret_cast<const char*>(data), qsizetype(size));
    const ProxyRequestHead head = ProxyRequestHead::parse(received);
    switch (head.status()) {
    case Status::Incomplete:
        check(received.size() <= ProxyRequestHead::kMaxHeadBytes,
              "a head past the size limit is refused, not waited for");
        return 0;
    case Status::Invalid:
        check(!head.error().isEmpty(), "a refusal says why");
        return 0;
    case Status::Complete:
        break;
    }
    check(!head.host().isEmpty() && head.port() > 0, "a complete head names a host and a port");
    for (const QChar c : head.host())
        check(c > u' ' && c != QChar(0x7f), "a host has no space or control character");
    check(head.headBytes() > 0 && head.headBytes() <= received.size(),
          "the head is within what came");
    if (head.kind() == ProxyRequestHead::Kind::Forward) {
        const QByteArray forward = head.forwardHead();
        check(forward.endsWith("\r\n\r\n"), "the forwarded head ends with an empty line");
        check(forward.indexOf("\r\n\r\n") == forward.size() - 4,
              "the forwarded head ends once: no request is smuggled behind it");
        check(forward.contains(" /"), "the forwarded request is in origin form");
        check(forward.contains("\r\nConnection: close\r\n"), "the connection is this request's");
        check(!forward.toLower().contains("\nproxy-"), "the proxy's own headers stay here");
        check(forward.count('\n') == forward.count("\r\n") &&
                  forward.count('\r') == forward.count("\r\n"),
              "every line ends with CRLF, and no CR or LF stands alone");
        for (const char c : forward) {
            check((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) || c == '\t' || c == '\r' ||
                      c == '\n',
                  "no control character goes upstream");
        }
        const QByteArray firstLine = forward.left(forward.indexOf("\r\n"));
        check(firstLine.endsWith(" HTTP/1.1") || firstLine.endsWith(" HTTP/1.0"),
              "the request line ends with a version there is");
    }
    // A complete head reads the same from its own bytes alone, and nothing shorter completes.
    const QByteArray own = received.left(head.headBytes());
    check(sameHead(ProxyRequestHead::parse(own), head), "a head reads the same from its bytes");
    check(ProxyRequestHead::parse(own.chopped(1)).status() != Status::Complete,
          "a head one byte short is not complete");
    return 0;
}
