// Linked into every test executable (csm_test_startup, compiled once as an object library).
//
// A test that runs sandboxes in its own process (the GUI tests' embedded server, a runner) labels
// their containers with its pid as their server's. Every server that starts sweeps the
// containers whose server is gone, and counts a pid as a live server only when its process is
// named code-sandbox-* (ProcessProbe, so that a reused pid does not keep containers forever).
// With tests two at a time, a server started by the other test would take this test for dead and
// remove its containers mid-run (they were "killed from outside", exit 137). A test process is
// a Code Sandbox process: it says so in its name.
#ifdef __linux__
#include <sys/prctl.h>

namespace {

[[maybe_unused]] const bool g_named = [] {
    return prctl(PR_SET_NAME, "code-sandbox-t", 0, 0, 0) == 0;
}();

} // namespace
#endif
