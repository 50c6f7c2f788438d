"""OpenAI: the OpenAI-compatible frontend, Conch's counterpart of Triton's
``openai_frontend`` (its routes, schemas and errors), served natively on
the HTTP transport beside the KServe frontends."""

from __future__ import annotations

import json
import os
from dataclasses import field
from typing import Any, Optional, Union

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from .. import _conch
from ._chat_template import ChatTemplate
from ._frontend import Frontend
from ._policy import POLICY_DEFAULTS, policy_of

__all__ = ["OpenAI", "ChatTemplate"]

#: The native options' defaults, by field name: each is written once, in C++.
_DEFAULTS = _conch.OpenAiFrontend.defaults()

#: The API groups a header can restrict, as Triton's frontend names them.
API_GROUPS = ("inference", "embedding", "model-repository", "model-management", "metrics",
              "health")


class OpenAI(Frontend):
    """Serves a started Server with OpenAI's API, as Triton's OpenAI
    frontend does: ``POST /v1/chat/completions``, ``/v1/completions`` and
    ``/v1/embeddings`` (whole answers, or server-sent events with
    ``"stream": true``), ``GET /v1/models`` and ``/v1/models/{model}``,
    ``POST /v1/models/{model}/load`` and ``/unload``, ``GET /health/ready``
    and ``GET /metrics``:

        with OpenAI(server, OpenAI.Options(tokenizer="path/to/tokenizer")):
            client = openai.OpenAI(base_url="http://localhost:9000/v1", api_key="EMPTY")
            ...

    A model it serves follows Triton's convention for text generation
    models (docs/openai.md): ``text_input`` in, ``text_output`` out, and
    either a ``sampling_parameters`` JSON input (vLLM's) or one input per
    setting. It keeps the server alive, and ``server.stop()`` stops it
    first."""

    @dataclass(config=ConfigDict(arbitrary_types_allowed=True))
    class Options:
        """Options of the OpenAI frontend, validated at construction (a
        pydantic ValidationError, a ValueError, for bad values). Names
        follow the flags of Triton's OpenAI frontend."""

        #: The address to listen on (an IPv4 or IPv6 literal).
        address: str = _DEFAULTS["address"]
        #: The TCP port (--openai-port); 0 picks a free one (OpenAI.port).
        port: int = Field(default=_DEFAULTS["port"], ge=0, le=65535)
        #: A Hugging Face tokenizer folder whose chat template renders chat
        #: requests (--tokenizer), and whose tokenizer.json (read with the
        #: `tokenizers` package, when installed) counts the tokens of a model
        #: that reports none. Without one (or chat_template), chat
        #: completions answer 400.
        tokenizer: Optional[str] = None
        #: A Jinja2 chat template file that replaces the tokenizer's
        #: (--chat-template); or a ChatTemplate, or any callable
        #: (messages_json, tools_json) -> prompt.
        chat_template: Any = None
        #: The max_tokens of a request that names none (--default-max-tokens).
        default_max_tokens: int = Field(default=_DEFAULTS["default_max_tokens"], ge=0)
        #: How the models write tool calls, "llama3" or "mistral"
        #: (--tool-call-parser): a chat with tools and tool_choice "auto"
        #: has its answer read for calls. None: such chats are refused (400).
        tool_call_parser: Optional[str] = None
        #: The most bytes of a tool call read; past it the answer ends with
        #: finish_reason "length" (--max-tool-call-parse-bytes).
        max_tool_call_parse_bytes: int = Field(default=_DEFAULTS["max_tool_call_parse_bytes"],
                                               gt=0)
        #: Splits a requested model name into a model and a LoRA adapter,
        #: "<model><separator><adapter>" (--lora-separator). The adapters
        #: of each model are read from the multi_lora.json ({name: path}) of
        #: its highest version folder, as Triton's frontend reads them.
        lora_separator: Optional[str] = None
        #: Endpoint groups behind a header (--openai-restricted-api): each
        #: entry is (apis, header name, header value), apis a list or a
        #: comma-separated string of API_GROUPS; without the header a
        #: request is answered 401.
        restricted_apis: list[tuple[Union[list[str], str], str, str]] = field(
            default_factory=list)
        #: When set, /v1 routes need ``Authorization: Bearer <api_key>``,
        #: as OpenAI's clients send their key (Conch's addition).
        api_key: Optional[str] = None
        #: The largest request body in bytes (--http-max-input-size);
        #: larger ones are answered 413.
        max_input_size: int = Field(default=_DEFAULTS["max_input_size"], gt=0)
        #: Give each loop thread its own listening socket with SO_REUSEPORT.
        reuse_port: bool = _DEFAULTS["reuse_port"]
        #: The number of threads serving connections.
        thread_count: int = Field(default=_DEFAULTS["thread_count"], gt=0)
        #: Inference requests at most in flight; beyond it they are
        #: answered 503 at once. 0: no limit.
        max_inflight: int = Field(default=_DEFAULTS["max_inflight"], ge=0)
        #: The largest request line plus headers in bytes (431 beyond).
        max_header_size: int = Field(default=_DEFAULTS["max_header_size"], gt=0)
        header_timeout: float = Field(default=POLICY_DEFAULTS["header_timeout"], ge=0)
        body_timeout: float = Field(default=POLICY_DEFAULTS["body_timeout"], ge=0)
        keepalive_timeout: float = Field(default=POLICY_DEFAULTS["keepalive_timeout"], ge=0)
        write_timeout: float = Field(default=POLICY_DEFAULTS["write_timeout"], ge=0)
        drain_timeout: float = Field(default=POLICY_DEFAULTS["drain_timeout"], ge=0)
        max_connections: int = Field(default=POLICY_DEFAULTS["max_connections"], ge=0)
        max_inflight_bytes: int = Field(default=POLICY_DEFAULTS["max_inflight_bytes"], ge=0)

        def __post_init__(self) -> None:
            groups = []
            for entry in self.restricted_apis:
                apis, key, value = entry
                names = [a.strip() for a in apis.split(",")] if isinstance(apis, str) else list(apis)
                groups.append((names, key, value))
            self.restricted_apis = groups

    def __init__(self, server: Any, options: Optional["OpenAI.Options"] = None) -> None:
        self._repositories = _repositories(server)
        super().__init__(server, options)

    def _create(self, native_server: Any, options: "OpenAI.Options") -> Any:
        adapters = _lora_adapters(self._repositories) if options.lora_separator else {}
        return _conch.OpenAiFrontend(
            native_server,
            address=options.address,
            port=options.port,
            reuse_port=options.reuse_port,
            thread_count=options.thread_count,
            max_input_size=options.max_input_size,
            max_header_size=options.max_header_size,
            default_max_tokens=options.default_max_tokens,
            restricted_apis=options.restricted_apis,
            api_key=options.api_key or "",
            max_inflight=options.max_inflight,
            tool_call_parser=options.tool_call_parser or "",
            lora_separator=options.lora_separator or "",
            lora_adapters=adapters,
            max_tool_call_parse_bytes=options.max_tool_call_parse_bytes,
            chat_template=_renderer(options),
            count_tokens=_counter(options),
            **policy_of(options),
        )


def _repositories(server: Any) -> list[str]:
    """The model repository folders of a conch (or tritonserver) Server."""
    options = getattr(server, "options", None)
    paths = getattr(options, "model_repository", None) or []
    return [paths] if isinstance(paths, str) else [str(p) for p in paths]


def _lora_adapters(repositories: list[str]) -> dict[str, list[str]]:
    """Each model's LoRA adapter names, in file order, from the
    multi_lora.json of its highest numeric version folder; models without
    one are left out (they take any adapter name)."""
    found: dict[str, list[str]] = {}
    for repository in repositories:
        if not os.path.isdir(repository):
            continue
        try:
            models = sorted(os.listdir(repository))
        except OSError:
            continue
        for model in models:
            folder = os.path.join(repository, model)
            try:
                versions = [v for v in os.listdir(folder) if v.isascii() and v.isdigit()]
            except OSError:
                continue
            if not versions:
                continue
            listing = os.path.join(folder, max(versions, key=int), "multi_lora.json")
            try:
                with open(listing, encoding="utf-8") as f:
                    adapters = json.load(f)
            except (OSError, ValueError):
                continue
            if isinstance(adapters, dict):
                found[model] = [str(name) for name in adapters]
    return found


def _counter(options: "OpenAI.Options") -> Any:
    """Counts tokens with the tokenizer folder's tokenizer.json; None
    without one (or without the `tokenizers` package)."""
    if options.tokenizer is None:
        return None
    path = os.path.join(options.tokenizer, "tokenizer.json")
    if not os.path.isfile(path):
        return None
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return None
    tokenizer = Tokenizer.from_file(path)
    # Counts are of the whole text: no truncation, no padding.
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    return count


def _renderer(options: "OpenAI.Options") -> Any:
    """The callable that renders chats: the one given, or a ChatTemplate
    from the tokenizer folder and/or the template file; None without
    either."""
    given = options.chat_template
    if given is not None and not isinstance(given, str):
        if not callable(given):
            raise ValueError("chat_template must be a path, a ChatTemplate or a callable")
        return given
    text = None
    if given is not None:
        with open(given, encoding="utf-8") as f:
            text = f.read()
    if options.tokenizer is not None:
        return ChatTemplate.from_tokenizer(options.tokenizer, template=text)
    if text is not None:
        return ChatTemplate(text)
    return None
