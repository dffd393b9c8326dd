#!/usr/bin/python3
"""The reference for issue 33's session cells: a local Jupyter kernel (Debian's ipykernel through
jupyter_client), no container, answering the cell `x + 1` as seams.mjs times it on Code Sandbox.

Each cell is timed from the execute request to the kernel's reply with its result on iopub, one
at a time, after 10 unmeasured ones.

Usage: /usr/bin/python3 bench/jupyter-cells.py [--cells N]
(apt install python3-jupyter-client python3-ipykernel)
"""
import argparse
import os
import statistics
import time

from jupyter_client.manager import start_new_kernel


def run_cell(client, code):
    msg_id = client.execute(code)
    result = None
    while True:
        message = client.get_iopub_msg(timeout=10)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        kind = message["msg_type"]
        if kind == "execute_result":
            result = message["content"]["data"]["text/plain"]
        elif kind == "error":
            raise RuntimeError(message["content"]["evalue"])
        elif kind == "status" and message["content"]["execution_state"] == "idle":
            return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=200)
    args = parser.parse_args()
    # The kernel's debugger says, on every start, that it may miss breakpoints: not measured.
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        run_cell(client, "x = 41")
        for _ in range(10):
            run_cell(client, "x + 1")
        samples = []
        for _ in range(args.cells):
            start = time.perf_counter()
            if run_cell(client, "x + 1") != "42":
                raise RuntimeError("the cell did not answer 42")
            samples.append((time.perf_counter() - start) * 1000)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    samples.sort()
    p95 = samples[int(len(samples) * 0.95) - 1]
    print(f"jupyter kernel (ipykernel, jupyter_client): session cell x + 1, {len(samples)} cells: "
          f"p50 {statistics.median(samples):.2f} ms, p95 {p95:.2f} ms")


if __name__ == "__main__":
    main()
