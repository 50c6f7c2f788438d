"""``conch serve``'s OpenAI frontend: the flags of Triton's OpenAI frontend
that Conch implements (--allow-openai, --openai-port, --tokenizer, ...), and
the frontend they start."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from . import _conch
from ._serve_common import _flag, _policy, _port, _positive, _say

if TYPE_CHECKING:
    from ._server import Server
    from .frontend import OpenAI

__all__ = ["add_openai_arguments", "start_openai"]

#: The OpenAI frontend's option defaults, as the native options define them;
#: the command line's defaults are these.
_OPENAI = _conch.OpenAiFrontend.defaults()


def add_openai_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the OpenAI frontend's group of flags to `parser`."""
    oai = parser.add_argument_group(
        "OpenAI frontend", "OpenAI's API (/v1/chat/completions, /v1/completions, "
        "/v1/embeddings, /v1/models) for models that follow Triton's text-generation "
        "convention (docs/openai.md)")
    _flag(oai, "--allow-openai", False,
          "serve the OpenAI-compatible API (default: false; --openai-port turns it on)")
    oai.add_argument("--openai-address", default=_OPENAI["address"], metavar="ADDR",
                     help=f"the address to listen on (default: {_OPENAI['address']})")
    oai.add_argument("--openai-port", type=_port, default=None, metavar="PORT",
                     help=f"the port; giving it serves the API (default: {_OPENAI['port']})")
    oai.add_argument("--openai-thread-count", type=_positive,
                     default=_OPENAI["thread_count"], metavar="N",
                     help=f"threads serving OpenAI requests (default: "
                          f"{_OPENAI['thread_count']})")
    oai.add_argument("--tokenizer", default=None, metavar="DIR",
                     help="a Hugging Face tokenizer folder whose chat template renders chat "
                          "requests (its tokenizer_config.json or chat_template.jinja)")
    oai.add_argument("--chat-template", default=None, metavar="FILE",
                     help="a Jinja2 chat template that replaces the tokenizer's")
    oai.add_argument("--default-max-tokens", type=int, default=_OPENAI["default_max_tokens"],
                     metavar="N",
                     help=f"max_tokens of a request that names none (default: "
                          f"{_OPENAI['default_max_tokens']})")
    oai.add_argument("--tool-call-parser", choices=("llama3", "mistral"), default=None,
                     help="how the models write tool calls; chats with tools and "
                          "tool_choice 'auto' get them parsed (default: none)")
    oai.add_argument("--max-tool-call-parse-bytes", type=_positive,
                     default=_OPENAI["max_tool_call_parse_bytes"], metavar="N",
                     help="the most bytes of a tool call read before the answer ends with "
                          "finish_reason 'length' (default: "
                          f"{_OPENAI['max_tool_call_parse_bytes']})")
    oai.add_argument("--lora-separator", default=None, metavar="SEP",
                     help="a model name '<model><SEP><adapter>' runs the model with that LoRA "
                          "adapter (listed in the model's multi_lora.json)")
    oai.add_argument("--openai-restricted-api", nargs=3, action="append", default=[],
                     metavar=("APIs", "Restricted Key", "Restricted Value"),
                     help="calls to these comma-separated API groups (inference, embedding, "
                          "model-repository, model-management, metrics, health) must carry "
                          "header KEY with VALUE, else 401; repeatable")
    oai.add_argument("--openai-api-key", default=os.environ.get("CONCH_OPENAI_API_KEY"),
                     metavar="KEY",
                     help="require 'Authorization: Bearer KEY' on the /v1 routes, as OpenAI's "
                          "clients send it (default: CONCH_OPENAI_API_KEY, else none)")


def start_openai(server: Server, args: argparse.Namespace) -> OpenAI:
    """Starts the OpenAI frontend the parsed `args` describe on `server`
    and says where it listens; the caller decides whether it is wanted
    (--allow-openai or --openai-port)."""
    from .frontend import OpenAI

    port = _OPENAI["port"] if args.openai_port is None else args.openai_port
    openai = OpenAI(server, OpenAI.Options(
        address=args.openai_address, port=port, thread_count=args.openai_thread_count,
        tokenizer=args.tokenizer, chat_template=args.chat_template,
        default_max_tokens=args.default_max_tokens,
        restricted_apis=[tuple(g) for g in args.openai_restricted_api],
        api_key=args.openai_api_key, max_input_size=args.http_max_input_size,
        tool_call_parser=args.tool_call_parser, lora_separator=args.lora_separator,
        max_tool_call_parse_bytes=args.max_tool_call_parse_bytes,
        **_policy(args)))
    openai.start()
    _say(f"OpenAI API listening on {args.openai_address}:{openai.port} "
         f"(base_url http://localhost:{openai.port}/v1)")
    return openai
