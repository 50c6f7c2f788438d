"""ChatTemplate: renders chat messages into a model's prompt with a Jinja2
chat template, as Hugging Face's ``apply_chat_template`` renders it (a
sandboxed environment with ``trim_blocks`` and ``lstrip_blocks``, its
``tojson``, ``raise_exception`` and ``strftime_now``, the tokenizer's
special tokens as variables, the ``{% generation %}`` block and loop
controls). Jinja2 does the rendering; nothing here imitates it."""

from __future__ import annotations

import json
import os
from datetime import datetime
from typing import Any, Optional

__all__ = ["ChatTemplate"]

#: The special tokens of tokenizer_config.json a template may name.
_SPECIAL_TOKENS = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token",
                   "mask_token")


def _token_text(value: Any) -> Optional[str]:
    # tokenizer_config.json writes a token as its text or as an AddedToken
    # object {"content": ...}.
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def _environment() -> Any:
    import jinja2
    from jinja2 import nodes
    from jinja2.ext import Extension
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class _GenerationBlock(Extension):
        """``{% generation %}...{% endgeneration %}``: marks what the
        assistant generated; rendering shows its body."""

        tags = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(
                lineno)

        def _render(self, caller: Any) -> str:
            return caller()

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(value: Any, ensure_ascii: bool = False, indent: Any = None,
               separators: Any = None, sort_keys: bool = False) -> str:
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent,
                          separators=separators, sort_keys=sort_keys)

    def strftime_now(format: str) -> str:
        return datetime.now().strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[_GenerationBlock, "jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


class ChatTemplate:
    """A compiled chat template and the variables it renders with.

        template = ChatTemplate.from_tokenizer("path/to/tokenizer")
        prompt = template.render([{"role": "user", "content": "Hi"}])

    Thread-safe: rendering keeps no state between calls."""

    def __init__(self, template: str, special_tokens: Optional[dict[str, str]] = None) -> None:
        if not isinstance(template, str) or not template:
            raise ValueError("a chat template must be a non-empty string")
        self._source = template
        self._template = _environment().from_string(template)
        self._tokens = dict(special_tokens or {})

    @property
    def source(self) -> str:
        """The template's Jinja2 text."""
        return self._source

    @classmethod
    def from_tokenizer(cls, folder: str, template: Optional[str] = None) -> "ChatTemplate":
        """The chat template of a Hugging Face tokenizer folder (its
        ``chat_template.jinja``, or ``tokenizer_config.json``'s
        ``chat_template``: a string, or a list of named templates of which
        "default" is used) with the folder's special tokens; ``template``,
        when given, replaces the folder's. Raises ValueError when the folder
        has no template and none is given."""
        config_path = os.path.join(folder, "tokenizer_config.json")
        config: dict[str, Any] = {}
        if os.path.isfile(config_path):
            with open(config_path, encoding="utf-8") as f:
                config = json.load(f)
        elif not os.path.isdir(folder):
            raise ValueError(f"tokenizer folder '{folder}' does not exist")
        tokens = {k: t for k in _SPECIAL_TOKENS if (t := _token_text(config.get(k))) is not None}
        if template is None:
            jinja_path = os.path.join(folder, "chat_template.jinja")
            if os.path.isfile(jinja_path):
                with open(jinja_path, encoding="utf-8") as f:
                    template = f.read()
            else:
                found = config.get("chat_template")
                if isinstance(found, list):
                    named = {t.get("name"): t.get("template") for t in found if isinstance(t, dict)}
                    found = named.get("default")
                template = found if isinstance(found, str) else None
        if not template:
            raise ValueError(
                f"the tokenizer in '{folder}' has no chat template: cannot use chat template "
                "functions without one (give the frontend a chat template)")
        return cls(template, tokens)

    def render(self, messages: list[dict[str, Any]], tools: Optional[list[Any]] = None,
               add_generation_prompt: bool = True) -> str:
        """The prompt for ``messages`` (and ``tools``, when given)."""
        return self._template.render(messages=messages, tools=tools, documents=None,
                                     add_generation_prompt=add_generation_prompt,
                                     **self._tokens)

    def __call__(self, messages_json: str, tools_json: str) -> str:
        """The frontend's renderer: messages and tools as JSON text."""
        messages = json.loads(messages_json)
        tools = json.loads(tools_json) if tools_json else None
        return self.render(messages, tools)
