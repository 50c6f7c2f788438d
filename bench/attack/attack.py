"""The attack suite: requests modelled on the classes of NVIDIA's Triton
security bulletins, sent to `conch serve`, each followed by a check that
the server is alive and serving (docs/attack.md).

    .venv/bin/python bench/attack/attack.py [--only NAME,...] [--list]

Three servers, started from .venv/bin/conch on free ports of 127.0.0.1:
  main        explicit model control, the KServe HTTP and gRPC, SageMaker
              and Vertex AI frontends, client shared memory allowed, logs
              on (captured, for the log-injection check)
  none        the default flags (model control none, client shared memory
              off), for what the defaults must refuse
  restricted  every endpoint group behind a key (--http-restricted-api,
              --grpc-restricted-protocol), for the routes around it
After each attack: the process runs, /v2/health/live and /v2/health/ready
answer 200 (ready may dip, and must come back, where the attack loads
models), an inference on identity_fp32 over HTTP and over gRPC returns its
input within a few seconds, and the server's resident memory grew by less
than 200 MiB. A server that died or hangs is restarted for the next attack.
Prints `PASS name`, `FAIL name: why` or `SKIP name: why` per attack, then
`N passed, M failed`; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

import harness
import model_repository
from harness import ATTACKS, CONCH, Attack, Context, Fail, Server, Skip, check_serving

# The attacks register themselves when imported, in this order.
import attacks_json  # noqa: F401,E402
import attacks_headers  # noqa: F401,E402
import attacks_shm  # noqa: F401,E402
import attacks_decoding  # noqa: F401,E402
import attacks_transfer  # noqa: F401,E402
import attacks_repository  # noqa: F401,E402
import attacks_names  # noqa: F401,E402
import attacks_files  # noqa: F401,E402
import attacks_restricted  # noqa: F401,E402
import attacks_races  # noqa: F401,E402
import attacks_openai  # noqa: F401,E402

SERVER_ORDER = ("main", "none", "restricted")


def serve_flags() -> set[str]:
    """The flags of `conch serve --help`."""
    text = subprocess.run([str(CONCH), "serve", "--help"], capture_output=True, text=True,
                          timeout=60).stdout
    return set(re.findall(r"--[a-z][a-z0-9-]+", text))


def _if(flags: set[str], flag: str, *values: str) -> list[str]:
    return [flag, *values] if flag in flags else []


def make_servers(work: pathlib.Path, flags: set[str]) -> dict[str, Server]:
    repo = model_repository.build(work)
    small = model_repository.build_small(work)
    local = ["--http-address", "127.0.0.1", "--http-port", "0", "--grpc-address", "127.0.0.1",
             "--grpc-port", "0", "--allow-metrics", "false"]
    cloud = ["--allow-sagemaker", "true", "--sagemaker-port", "0", "--allow-vertex-ai", "true",
             "--vertex-ai-port", "0", "--vertex-ai-default-model", "identity_fp32",
             *_if(flags, "--sagemaker-address", "127.0.0.1"),
             *_if(flags, "--vertex-ai-address", "127.0.0.1"),
             *_if(flags, "--openai-port", "0"), *_if(flags, "--openai-address", "127.0.0.1")]
    cloud_env = {"AIP_HEALTH_ROUTE": "/health", "AIP_PREDICT_ROUTE": "/predict",
                 "SAGEMAKER_TRITON_DEFAULT_MODEL_NAME": "identity_fp32"}
    main = Server("main", [
        "--model-repository", str(repo), "--model-control-mode", "explicit",
        *[a for m in ("identity_fp32", "simple", "repeat_int32", "identity_slow", "repeat_slow",
                      "identity_bytes") for a in ("--load-model", m)],
        *local, *cloud, "--log-info", "true", "--log-warning", "true", "--log-error", "true",
        "--http-header-timeout", "3", "--http-body-timeout", "3",
        "--cache-config", "local,size=1048576",
        "--grpc-header-forward-pattern", "^x-fwd-.*",
        *_if(flags, "--http-header-forward-pattern", "^x-fwd-.*"),
        *_if(flags, "--allow-client-shm", "true")], cloud_env)
    none = Server("none", ["--model-repository", str(small), *local,
                           "--exit-timeout-secs", "3", "--http-drain-timeout", "20"])
    groups = ",".join(("health", "metadata", "inference", "shared-memory", "model-config",
                       "model-repository", "statistics", "trace", "logging"))
    key = f"{attacks_restricted.KEY}={attacks_restricted.VALUE}"
    restricted = Server("restricted", [
        "--model-repository", str(repo), "--model-control-mode", "explicit",
        "--load-model", "identity_fp32", *local, *cloud,
        *_if(flags, "--http-restricted-api", f"{groups}:{key}"),
        *_if(flags, "--grpc-restricted-protocol", f"{groups}:{key}")], cloud_env,
        headers={attacks_restricted.KEY: attacks_restricted.VALUE},
        metadata=[(attacks_restricted.GRPC_KEY, attacks_restricted.VALUE)])
    return {"main": main, "none": none, "restricted": restricted}


def run_one(item: Attack, server: Server, ctx: Context) -> tuple[str, str, bool]:
    """(PASS|FAIL|SKIP, why, whether the server is broken) of one attack and
    the check after it."""
    before = server.rss_kib()
    try:
        item.run(ctx)
    except Skip as e:
        return "SKIP", str(e), False
    except Fail as e:
        why = str(e)
    except Exception as e:  # noqa: BLE001 - a reset or a timeout is a finding too
        why = f"{type(e).__name__}: {e}"
    else:
        why = ""
    if item.final:
        return ("FAIL" if why else "PASS"), why, False
    broken = check_serving(server, item.loads)
    if broken:
        return "FAIL", f"{why + '; then ' if why else ''}{broken}", True
    if why:
        return "FAIL", why, False
    grown = server.rss_kib() - before
    if before and grown > harness.MAX_RSS_GROWTH_KIB:
        return "FAIL", f"the server's RSS grew by {grown >> 10} MiB", False
    return "PASS", "", False


def run_group(server: Server, todo: list[Attack], work: pathlib.Path, flags: set[str],
              args: argparse.Namespace, results: dict[str, int]) -> None:
    """Runs the attacks on one server, restarting it after one that broke it."""
    def report(verdict: str, name: str, why: str) -> None:
        results[verdict] += 1
        print(f"{verdict} {name}" + (f": {why}" if why else ""), flush=True)

    try:
        server.start()
    except RuntimeError as e:
        for item in todo:
            report("FAIL", item.name, str(e).splitlines()[0])
        return
    for n, item in enumerate(todo):
        folder = work / "attacks" / item.name
        folder.mkdir(parents=True)
        ctx = Context(server, folder, work / "repository", flags, args.time_scale)
        verdict, why, broken = run_one(item, server, ctx)
        report(verdict, item.name, why)
        if item.final:
            break
        if broken:
            print(f"attack: restarting the {server.name} server for the next attack", flush=True)
            try:
                server.restart()
            except RuntimeError as e:
                for rest in todo[n + 1:]:
                    report("FAIL", rest.name, f"the server did not restart: {e}".splitlines()[0])
                return
    if args.keep:
        print(f"--- the {server.name} server's log, last lines:")
        print("\n".join(server.lines[-30:]))
    server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="",
                        help="comma-separated parts of attack names to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the attacks and exit")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="multiplies every time bound (for slow machines; default 1)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary folder and print the servers' logs' tails")
    args = parser.parse_args()
    chosen = [a for a in ATTACKS
              if not args.only or any(part in a.name for part in args.only.split(","))]
    chosen.sort(key=lambda a: SERVER_ORDER.index(a.server))
    if args.list:
        for a in chosen:
            print(f"{a.name:40} {a.server:10} {a.models}")
        return 0
    if not CONCH.exists():
        print(f"attack: {CONCH} is missing; run `make python` first", file=sys.stderr)
        return 2
    work = pathlib.Path(tempfile.mkdtemp(prefix="conch-attack-"))
    flags = serve_flags()
    servers = make_servers(work, flags)
    results: dict[str, int] = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    started = time.monotonic()
    try:
        for name in SERVER_ORDER:
            todo = [a for a in chosen if a.server == name]
            if todo:
                run_group(servers[name], todo, work, flags, args, results)
    finally:
        for server in servers.values():
            server.kill()
        if args.keep:
            print(f"attack: files in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"attack: {results['SKIP']} skipped; {time.monotonic() - started:.0f} s in all")
    print(f"{results['PASS']} passed, {results['FAIL']} failed")
    return 1 if results["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
