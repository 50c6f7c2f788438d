"""What ``conch serve``'s modules (_serve, _serve_openai) share: the argument
types of its flags, the connection policy the --http-* flags give every HTTP
frontend, and how it tells the operator what it does. A module of its own so
that neither imports the other back."""

from __future__ import annotations

import argparse

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {port}")
    return port


def _flag(group: argparse._ArgumentGroup, name: str, default: bool, help: str) -> None:
    # "--flag", "--flag true" and "--flag=false" all work, as tritonserver's.
    group.add_argument(name, type=_bool, nargs="?", const=True, default=default,
                       metavar="BOOL", help=help)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a count > 0, got {text!r}")
    return value


def _policy(args: argparse.Namespace) -> dict:
    """The connection policy of the --http-* flags, as Options fields."""
    return {
        "header_timeout": args.http_header_timeout,
        "body_timeout": args.http_body_timeout,
        "keepalive_timeout": args.http_keepalive_timeout,
        "write_timeout": args.http_write_timeout,
        "drain_timeout": args.http_drain_timeout,
        "max_connections": args.http_max_connections,
        "max_inflight_bytes": args.http_max_inflight_bytes,
    }


def _say(message: str) -> None:
    print(f"conch: {message}", flush=True)
