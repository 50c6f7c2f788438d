"""Where a Conch server's memory at rest goes, component by component.

    .venv/bin/python bench/python/memory_at_rest.py

One Python process adds the parts of a server one at a time and reads its
RSS (anonymous and file-backed) after each: the interpreter with numpy, the
conch extension and its libraries, a started server over an empty
repository (the actor system), the metrics, HTTP and gRPC frontends, the
C++ identity model, a python identity model. Then `conch serve` runs the
C++ identity model with all three frontends, with its default allocator and
with the system one, as a server at rest would. Nothing is requested: this
is memory at rest, not under load. It never fails on a number.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "peers"))

from peer_servers import CPP_CONFIG, CPP_MODEL, PB_CONFIG, PB_MODEL, PYTHON_MODEL  # noqa: E402

SETTLE_S = 1.0  # lets the threads a step started reach their idle state


def rss_of(pid: str = "self") -> tuple[float, float, float]:
    """(RSS, anonymous, file-backed) in MiB."""
    text = pathlib.Path(f"/proc/{pid}/status").read_text()
    return tuple(int(re.search(rf"^{k}:\s+(\d+) kB", text, re.M).group(1)) / 1024
                 for k in ("VmRSS", "RssAnon", "RssFile"))


def write_repository(root: pathlib.Path) -> pathlib.Path:
    for name, config in ((CPP_MODEL, CPP_CONFIG), (PYTHON_MODEL, PB_CONFIG)):
        (root / name / "1").mkdir(parents=True)
        (root / name / "config.pbtxt").write_text(config)
    (root / PYTHON_MODEL / "1" / "model.py").write_text(PB_MODEL)
    return root


def in_process(repo: pathlib.Path) -> None:
    """The steps, each measured in this process once it settled."""
    rows: list[tuple[str, tuple[float, float, float]]] = []

    def step(what: str) -> None:
        time.sleep(SETTLE_S)
        rows.append((what, rss_of()))

    import numpy  # noqa: F401

    step("Python 3 with numpy")
    import conch
    from conch.frontend import KServeGrpc, KServeHttp, Metrics

    step("+ import conch (the extension and its libraries)")
    server = conch.Server(model_repository=str(repo), log_info=False,
                          model_control_mode=conch.ModelControlMode.EXPLICIT).start(
                              wait_until_ready=True)
    step("+ a started server, no model (actor system, repository)")
    metrics = Metrics(server, Metrics.Options(address="127.0.0.1", port=0))
    metrics.start()
    step("+ the metrics frontend")
    http = KServeHttp(server, KServeHttp.Options(address="127.0.0.1", port=0))
    http.start()
    step("+ the HTTP frontend (8 loop threads)")
    grpc = KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0))
    grpc.start()
    step("+ the gRPC frontend")
    server.load(CPP_MODEL)
    step("+ the C++ identity model")
    server.load(PYTHON_MODEL)
    step("+ a python identity model (pb_utils)")
    grpc.stop()
    http.stop()
    metrics.stop()
    server.stop()
    previous = 0.0
    print(f"{'in one process':58s} {'RSS':>8s} {'step':>8s} {'anon':>8s} {'file':>8s}")
    for what, (rss, anon, file) in rows:
        print(f"{what:58s} {rss:6.1f} M {rss - previous:+6.1f} M {anon:6.1f} M {file:6.1f} M")
        previous = rss


def serve(repo: pathlib.Path, allocator: str) -> tuple[float, float, float]:
    """RSS of `conch serve` at rest with the C++ identity and all frontends."""
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "conch"), "serve", "--model-repository", str(repo),
         "--model-control-mode", "explicit", "--load-model", CPP_MODEL, "--http-port", "0",
         "--grpc-port", "0", "--metrics-port", "0", "--allocator", allocator],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "serving; stop with" in line:
                break
        time.sleep(SETTLE_S)
        return rss_of(str(process.pid))
    finally:
        process.terminate()
        process.wait(timeout=60)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = write_repository(pathlib.Path(tmp))
        if len(sys.argv) > 1 and sys.argv[1] == "--steps":
            in_process(repo)
            return
        load = " ".join(open("/proc/loadavg").read().split()[:3])
        print(f"Python {sys.version.split()[0]}, load average {load}", flush=True)
        # The steps run in a child, so that this process's imports count nowhere.
        subprocess.run([sys.executable, __file__, "--steps"], check=False)
        print()
        for allocator in ("auto", "system"):
            rss, anon, file = serve(repo, allocator)
            print(f"conch serve, C++ identity, HTTP+gRPC+metrics, --allocator {allocator:6s} "
                  f"{rss:6.1f} M  anon {anon:6.1f} M  file {file:6.1f} M")


if __name__ == "__main__":
    main()
