"""The OpenAI-compatible frontend, driven by the official openai client and
raw HTTP against python-backend mock models (tests/openai_models): every
route, whole and streamed answers, usage, stop sequences, tool choice,
embeddings, errors in Triton's shapes, restriction, API key, the body limit,
cancellation when a client goes away, and stop under streaming."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import pathlib
import shutil
import socket
import struct
import time
from typing import Any, Iterator

import openai
import pytest

import conch
from conch.frontend import ChatTemplate, OpenAI

from conftest import http_call, identity_config, write_model

MODELS = pathlib.Path(__file__).parent / "openai_models"
TOKENIZER = str(MODELS / "tokenizer")


@pytest.fixture(scope="module")
def cancel_dir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return tmp_path_factory.mktemp("cancelled")


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("openai_repo")
    for name in ("mock_llm", "mock_trt", "mock_embed", "bls_llm", "ensemble_llm"):
        shutil.copytree(MODELS / name, root / name)
    write_model(root, "not_llm", identity_config("TYPE_FP32"))
    return root


@pytest.fixture(scope="module")
def server(repository: pathlib.Path, cancel_dir: pathlib.Path) -> Iterator[conch.Server]:
    os.environ["CONCH_TEST_CANCEL_DIR"] = str(cancel_dir)
    srv = conch.Server(model_repository=str(repository)).start(wait_until_ready=True)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def frontend(server: conch.Server) -> Iterator[OpenAI]:
    with OpenAI(server, OpenAI.Options(port=0, tokenizer=TOKENIZER)) as f:
        yield f


@pytest.fixture
def client(frontend: OpenAI) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"http://127.0.0.1:{frontend.port}/v1", api_key="EMPTY",
                         max_retries=0)


def post(port: int, path: str, body: Any, headers: dict[str, str] | None = None
         ) -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, _, raw = http_call(port, "POST", path, data,
                               {"Content-Type": "application/json", **(headers or {})})
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw


# -- models, health, metrics ------------------------------------------------------


def test_models_lists_every_ready_model(frontend: OpenAI, client: openai.OpenAI) -> None:
    models = client.models.list()
    names = sorted(m.id for m in models.data)
    assert names == ["bls_llm", "ensemble_llm", "mock_embed", "mock_llm", "mock_trt", "not_llm"]
    for m in models.data:
        assert m.object == "model" and m.owned_by == "Triton Inference Server"
        assert abs(m.created - time.time()) < 3600
    assert client.models.retrieve("mock_llm").id == "mock_llm"
    status, _, body = http_call(frontend.port, "GET", "/v1/models/nope")
    assert status == 404 and json.loads(body) == {"detail": "Unknown model: nope"}


def test_health_metrics_and_unknown_routes(frontend: OpenAI) -> None:
    assert http_call(frontend.port, "GET", "/health/ready")[0] == 200
    status, headers, body = http_call(frontend.port, "GET", "/metrics")
    assert status == 200 and b"nv_inference_request_success" in body
    status, _, body = http_call(frontend.port, "GET", "/v1/nothing")
    assert status == 404 and json.loads(body) == {"detail": "Not Found"}
    assert http_call(frontend.port, "GET", "/v1/chat/completions")[0] == 405


# -- completions ------------------------------------------------------------------


def test_completion_whole_answer_with_usage(client: openai.OpenAI) -> None:
    c = client.completions.create(model="mock_llm", prompt="what is this", max_tokens=4)
    assert c.object == "text_completion" and c.id.startswith("cmpl-")
    assert c.model == "mock_llm"
    assert c.choices[0].text == "w0 w1 w2 w3"
    assert c.choices[0].finish_reason == "stop"
    assert (c.usage.prompt_tokens, c.usage.completion_tokens, c.usage.total_tokens) == (3, 4, 7)


def test_completion_stream_equals_the_whole_answer(client: openai.OpenAI) -> None:
    whole = client.completions.create(model="mock_llm", prompt="a b", max_tokens=5)
    chunks = list(client.completions.create(model="mock_llm", prompt="a b", max_tokens=5,
                                            stream=True,
                                            stream_options={"include_usage": True}))
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == whole.choices[0].text
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes.count("stop") == 1 and finishes[-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage == whole.usage
    assert all(c.usage is None for c in chunks[:-1])


def test_stop_sequences_cut_the_text_whole_and_streamed(client: openai.OpenAI) -> None:
    whole = client.completions.create(model="mock_llm", prompt="p", max_tokens=8, stop=["w3"])
    assert whole.choices[0].text == "w0 w1 w2 "
    streamed = client.completions.create(model="mock_llm", prompt="p", max_tokens=8,
                                         stop="w3", stream=True)
    assert "".join(c.choices[0].text for c in streamed) == "w0 w1 w2 "


def test_sampling_settings_reach_a_vllm_style_model(client: openai.OpenAI) -> None:
    # (No stop here: the frontend would cut the echoed settings at it.)
    c = client.completions.create(model="mock_llm", prompt="SAMPLING", max_tokens=9,
                                  temperature=0.25, top_p=0.5, seed=4,
                                  frequency_penalty=0.1, presence_penalty=-0.2,
                                  extra_body={"min_tokens": 2})
    params = json.loads(c.choices[0].text)
    assert params == {"frequency_penalty": 0.1, "ignore_eos": False, "max_tokens": 9, "n": 1,
                      "presence_penalty": -0.2, "seed": 4, "min_tokens": 2,
                      "temperature": 0.25, "top_p": 0.5}


def test_echo_repeats_the_prompt(client: openai.OpenAI) -> None:
    c = client.completions.create(model="mock_llm", prompt="say ", max_tokens=2, echo=True)
    assert c.choices[0].text == "say w0 w1"


def test_a_tensor_input_model_gets_typed_tensors(client: openai.OpenAI) -> None:
    c = client.completions.create(model="mock_trt", prompt="hello", max_tokens=7,
                                  temperature=0.5, stop=["QQ"], seed=3)
    # (The model writes the stop words in lower case, or the frontend
    # would cut its text at them.)
    assert c.choices[0].text == "max_tokens=7 temperature=0.5 stop=['qq'] seed=3 | hello"
    assert c.usage is None  # the model reports no token counts
    # A non-decoupled model streams its one answer as one chunk.
    chunks = list(client.completions.create(model="mock_trt", prompt="x", stream=True))
    assert "".join(c.choices[0].text for c in chunks).endswith("| x")
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_bls_pipelines_and_ensembles_serve_too(client: openai.OpenAI) -> None:
    streamed = client.completions.create(model="bls_llm", prompt="p", max_tokens=3, stream=True)
    assert "".join(c.choices[0].text for c in streamed) == "W0 W1 W2"
    whole = client.completions.create(model="bls_llm", prompt="p", max_tokens=2)
    assert whole.choices[0].text == "W0 W1"
    c = client.completions.create(model="ensemble_llm", prompt="hi", max_tokens=5)
    assert c.choices[0].text == "max_tokens=5 | hi"


def test_default_max_tokens_applies(client: openai.OpenAI) -> None:
    c = client.completions.create(model="mock_trt", prompt="x")
    assert c.choices[0].text.startswith("max_tokens=16 ")


# -- chat -------------------------------------------------------------------------


def test_chat_renders_the_template(client: openai.OpenAI) -> None:
    c = client.chat.completions.create(
        model="mock_trt", messages=[{"role": "system", "content": "be brief"},
                                    {"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    assert c.object == "chat.completion"
    message = c.choices[0].message
    assert message.role == "assistant" and message.tool_calls is None
    assert message.content == "max_tokens=16 temperature=0.7 | <s>[system] be brief\n[user] hi\n[assistant]"


def test_chat_stream_starts_with_the_role(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="mock_llm", max_tokens=3,
                                           messages=[{"role": "user", "content": "x"}])
    chunks = list(client.chat.completions.create(
        model="mock_llm", max_tokens=3, messages=[{"role": "user", "content": "x"}],
        stream=True, stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[0].object == "chat.completion.chunk"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content == "w0 w1 w2"
    assert chunks[-1].usage == whole.usage


def test_chat_max_completion_tokens_wins(client: openai.OpenAI) -> None:
    c = client.chat.completions.create(model="mock_llm", max_tokens=9, max_completion_tokens=2,
                                       messages=[{"role": "user", "content": "x"}])
    assert c.choices[0].message.content == "w0 w1"


def test_a_named_tool_choice_answers_with_that_call(client: openai.OpenAI) -> None:
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}}}}}]
    c = client.chat.completions.create(
        model="mock_llm", messages=[{"role": "user", "content": "SAMPLING"}], tools=tools,
        tool_choice={"type": "function", "function": {"name": "lookup"}})
    call = c.choices[0].message.tool_calls[0]
    assert call.function.name == "lookup" and call.type == "function"
    # The tool's schema went to the model as guided decoding.
    sent = json.loads(call.function.arguments)
    assert sent["structured_outputs"] == {"json": tools[0]["function"]["parameters"]}
    streamed = list(client.chat.completions.create(
        model="mock_llm", messages=[{"role": "user", "content": "SAMPLING"}], tools=tools,
        tool_choice="required", stream=True))
    deltas = [d for c in streamed if c.choices for d in (c.choices[0].delta.tool_calls or [])]
    assert deltas[0].function.name == "lookup"
    assert json.loads("".join(d.function.arguments or "" for d in deltas)) == sent


def test_a_tool_result_turn_renders_and_answers(client: openai.OpenAI) -> None:
    c = client.chat.completions.create(model="mock_trt", messages=[
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "cold"}], tool_choice="none",
        tools=[{"type": "function", "function": {"name": "weather"}}])
    text = c.choices[0].message.content
    assert '[calls weather {"city": "Oslo"}]' in text and "[tool c1] cold" in text
    assert "[tools weather]" in text


# -- embeddings -------------------------------------------------------------------


def test_embeddings_as_floats_and_base64(client: openai.OpenAI) -> None:
    e = client.embeddings.create(model="mock_embed", input=["one two", "three"],
                                 encoding_format="float")
    assert [d.index for d in e.data] == [0, 1]
    assert e.data[0].embedding == [7.0, 2.0, 0.5, 0.5]
    assert e.usage.prompt_tokens == 3 and e.usage.total_tokens == 3
    status, body = post(client.base_url.port, "/v1/embeddings",
                        {"model": "mock_embed", "input": "abc", "dimensions": 3,
                         "encoding_format": "base64"})
    assert status == 200
    raw = base64.b64decode(body["data"][0]["embedding"])
    assert list(struct.unpack("<3f", raw)) == [3.0, 1.0, 0.5]
    status, body = post(client.base_url.port, "/v1/embeddings",
                        {"model": "mock_llm", "input": "abc"})
    assert status == 400 and "embedding_request" in body["detail"]


# -- errors -----------------------------------------------------------------------


def test_errors_have_triton_shapes(frontend: OpenAI) -> None:
    port = frontend.port
    status, body = post(port, "/v1/completions", {"model": "nope", "prompt": "x"})
    assert (status, body) == (400, {"detail": "Unknown model: nope"})
    status, body = post(port, "/v1/completions", {"model": "mock_llm", "prompt": "x",
                                                  "temperature": 5, "bogus": 1})
    assert status == 422
    assert {tuple(d["loc"]) for d in body["detail"]} == {("body", "temperature"),
                                                         ("body", "bogus")}
    status, body = post(port, "/v1/completions", {"model": "mock_llm", "prompt": "x", "n": 2})
    assert status == 400 and "only single choice" in body["detail"]
    status, body = post(port, "/v1/chat/completions",
                        {"model": "mock_llm", "messages": []})
    assert status == 422
    status, body = post(port, "/v1/completions", {"model": "not_llm", "prompt": "x"})
    assert status == 400 and "does not follow the OpenAI frontend's model contract" in body[
        "detail"] and "text_input" in body["detail"]
    status, body = post(port, "/v1/completions", {"model": "mock_trt", "prompt": "x",
                                                  "logprobs": 1})
    assert status == 400 and "only for the vLLM backend" in body["detail"]
    status, body = post(port, "/v1/completions", b"{not json")
    assert status == 422 and body["detail"][0]["type"] == "json_invalid"
    status, body = post(port, "/v1/completions", b"[" * 200000 + b"]" * 200000)
    assert status == 422


def test_model_errors_whole_and_mid_stream(client: openai.OpenAI) -> None:
    with pytest.raises(openai.InternalServerError) as failed:
        client.completions.create(model="mock_llm", prompt="FAIL")
    assert failed.value.body == {"detail": "mock failure"}
    stream = client.completions.create(model="mock_llm", prompt="FAIL", max_tokens=5,
                                       stream=True)
    seen = []
    with pytest.raises(openai.APIError, match="mock failure"):
        for c in stream:
            seen.append(c.choices[0].text)
    assert "".join(seen) == "w0 w1"


def test_chat_without_a_template_is_refused(server: conch.Server) -> None:
    with OpenAI(server, OpenAI.Options(port=0)) as f:
        status, body = post(f.port, "/v1/chat/completions",
                            {"model": "mock_llm", "messages": [{"role": "user",
                                                                "content": "x"}]})
        assert status == 400 and "Unknown tokenizer" in body["detail"]


# -- edges ------------------------------------------------------------------------


def test_restricted_apis_and_api_key(server: conch.Server) -> None:
    options = OpenAI.Options(port=0, api_key="sekrit",
                             restricted_apis=[("inference,embedding", "x-team", "a")])
    with OpenAI(server, options) as f:
        base = f"http://127.0.0.1:{f.port}/v1"
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=base, api_key="wrong", max_retries=0).models.list()
        good = openai.OpenAI(base_url=base, api_key="sekrit", max_retries=0)
        assert len(good.models.list().data) == 6
        with pytest.raises(openai.AuthenticationError) as refused:
            good.completions.create(model="mock_llm", prompt="x")
        assert refused.value.body["type"] == "authentication_error"
        assert "expecting header 'x-team'" in refused.value.body["message"]
        team = openai.OpenAI(base_url=base, api_key="sekrit", max_retries=0,
                             default_headers={"X-Team": "a"})
        assert team.completions.create(model="mock_llm", prompt="x", max_tokens=1).choices
        # Health and metrics stay open without the key.
        assert http_call(f.port, "GET", "/health/ready")[0] == 200
    with pytest.raises(conch.InvalidArgumentError, match="Unknown API 'inferenc'"):
        with OpenAI(server, OpenAI.Options(port=0, restricted_apis=[("inferenc", "k", "v")])):
            pass


def test_a_body_past_the_limit_is_413(server: conch.Server) -> None:
    with OpenAI(server, OpenAI.Options(port=0, max_input_size=1024)) as f:
        status, body = post(f.port, "/v1/completions",
                            {"model": "mock_llm", "prompt": "x" * 2000})
        assert status == 413
        assert body["error"]["code"] == "content_too_large"
        assert "--http-max-input-size" in body["error"]["message"]
        status, _ = post(f.port, "/v1/completions",
                         {"model": "mock_llm", "prompt": "x", "max_tokens": 1})
        assert status == 200


def test_a_client_that_goes_away_cancels_its_request(frontend: OpenAI,
                                                     cancel_dir: pathlib.Path) -> None:
    marker = cancel_dir / "cancelled"
    if marker.exists():
        marker.unlink()
    conn = http.client.HTTPConnection("127.0.0.1", frontend.port, timeout=30)
    conn.request("POST", "/v1/completions", json.dumps(
        {"model": "mock_llm", "prompt": "SLOW away", "max_tokens": 500, "stream": True}),
        {"Content-Type": "application/json"})
    reply = conn.getresponse()
    assert reply.status == 200
    assert reply.readline().startswith(b"data: ")
    conn.sock.shutdown(socket.SHUT_RDWR)
    conn.close()
    deadline = time.monotonic() + 20
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.read_text() == "SLOW away"


def test_the_async_client_streams(frontend: OpenAI) -> None:
    async def run() -> str:
        client = openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{frontend.port}/v1",
                                    api_key="EMPTY", max_retries=0)
        stream = await client.chat.completions.create(
            model="mock_llm", max_tokens=4, messages=[{"role": "user", "content": "x"}],
            stream=True)
        text = "".join([c.choices[0].delta.content or "" async for c in stream])
        await client.close()
        return text

    assert asyncio.run(run()) == "w0 w1 w2 w3"


def test_load_and_unload_routes(tmp_path: pathlib.Path) -> None:
    shutil.copytree(MODELS / "mock_embed", tmp_path / "mock_embed")
    srv = conch.Server(model_repository=str(tmp_path), model_control_mode=conch.ModelControlMode.EXPLICIT,
                       startup_models=["mock_embed"]).start(wait_until_ready=True)
    try:
        with OpenAI(srv, OpenAI.Options(port=0)) as f:
            status, body = post(f.port, "/v1/models/mock_embed/unload", {})
            assert (status, body) == (200, {"status": "success", "model": "mock_embed"})
            assert http_call(f.port, "GET", "/v1/models/mock_embed")[0] == 404
            status, body = post(f.port, "/v1/embeddings", {"model": "mock_embed", "input": "x"})
            assert (status, body) == (400, {"detail": "Unknown model: mock_embed"})
            status, body = post(f.port, "/v1/models/mock_embed/load", {})
            assert status == 200 and body["id"] == "mock_embed"
            status, body = post(f.port, "/v1/models/absent/load", {})
            assert status in (400, 500) and body["detail"]
    finally:
        srv.stop()


def test_stop_ends_open_streams_on_time(repository: pathlib.Path) -> None:
    # A stream that would run for 40 s: at the drain deadline its request is
    # cancelled, the model ends it, and the client gets a whole stream.
    srv = conch.Server(model_repository=str(repository), exit_timeout=6).start(
        wait_until_ready=True)
    frontend = OpenAI(srv, OpenAI.Options(port=0))
    frontend.start()
    conn = http.client.HTTPConnection("127.0.0.1", frontend.port, timeout=30)
    conn.request("POST", "/v1/completions", json.dumps(
        {"model": "mock_llm", "prompt": "SLOW stop", "max_tokens": 2000, "stream": True}),
        {"Content-Type": "application/json"})
    reply = conn.getresponse()
    assert reply.readline().startswith(b"data: ")
    started = time.monotonic()
    srv.stop()
    assert time.monotonic() - started < 6
    events = [line for line in reply.read().split(b"\n\n") if line]
    assert events[-1] == b"data: [DONE]"
    assert json.loads(events[-2][len(b"data: "):])["choices"][0]["finish_reason"] == "stop"
    conn.close()


def test_chat_template_renders_like_hugging_face() -> None:
    t = ChatTemplate.from_tokenizer(TOKENIZER)
    assert t.render([{"role": "user", "content": "hi"}]) == "<s>[user] hi\n[assistant]"
    strict = ChatTemplate("{{ raise_exception('no system') if messages[0]['role'] == 'system' }}"
                          "{{ messages | tojson }}")
    assert strict.render([{"role": "user", "content": "é"}]) == '[{"role": "user", "content": "é"}]'
    with pytest.raises(Exception, match="no system"):
        strict.render([{"role": "system", "content": "x"}])
    with pytest.raises(ValueError, match="no chat template"):
        ChatTemplate.from_tokenizer(str(MODELS / "mock_llm"))


def test_conch_serve_serves_the_openai_api(repository: pathlib.Path) -> None:
    import re
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "conch", "serve", "--model-repository", str(repository),
         "--allow-http", "false", "--allow-grpc", "false", "--allow-metrics", "false",
         "--openai-port", "0", "--tokenizer", TOKENIZER, "--default-max-tokens", "3",
         "--openai-restricted-api", "model-repository", "x-admin", "yes"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = None
        assert process.stdout is not None
        for line in process.stdout:
            if match := re.search(r"OpenAI API listening on \S+:(\d+) ", line):
                port = int(match.group(1))
                break
        assert port is not None, "conch serve did not start the OpenAI frontend"
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="EMPTY",
                               max_retries=0)
        c = client.chat.completions.create(model="mock_llm",
                                           messages=[{"role": "user", "content": "x"}])
        assert c.choices[0].message.content == "w0 w1 w2"
        with pytest.raises(openai.AuthenticationError):
            client.models.list()
    finally:
        process.terminate()
        assert process.wait(timeout=60) == 0


# -- tool calls in free text --------------------------------------------------------

TOOLS = [{"type": "function", "function": {"name": "weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def _tool_client(server: conch.Server, **options: Any) -> Iterator[openai.OpenAI]:
    with OpenAI(server, OpenAI.Options(port=0, tokenizer=TOKENIZER, **options)) as f:
        yield openai.OpenAI(base_url=f"http://127.0.0.1:{f.port}/v1", api_key="EMPTY",
                            max_retries=0)


@pytest.mark.parametrize("parser,prompt", [("llama3", "TOOLCALL"), ("mistral", "MISTRAL")])
def test_auto_tool_calls_whole_and_streamed(server: conch.Server, parser: str,
                                            prompt: str) -> None:
    for client in _tool_client(server, tool_call_parser=parser):
        messages = [{"role": "user", "content": prompt}]
        c = client.chat.completions.create(model="mock_llm", messages=messages, tools=TOOLS,
                                           max_tokens=40)
        assert c.choices[0].finish_reason == "tool_calls"
        call = c.choices[0].message.tool_calls[0]
        assert call.function.name == "weather" and len(call.id) >= 9
        assert json.loads(call.function.arguments) == {"city": "Oslo"}
        chunks = list(client.chat.completions.create(model="mock_llm", messages=messages,
                                                     tools=TOOLS, tool_choice="auto",
                                                     max_tokens=40, stream=True))
        finishes = [ch.choices[0].finish_reason for ch in chunks if ch.choices]
        assert finishes.count("tool_calls") == 1 and finishes[-1] == "tool_calls"
        deltas = [d for ch in chunks if ch.choices for d in (ch.choices[0].delta.tool_calls or [])]
        assert deltas[0].function.name == "weather" and deltas[0].id
        assert len(deltas) > 3  # the arguments come piece by piece
        assert json.loads("".join(d.function.arguments or "" for d in deltas)) == {
            "city": "Oslo"}
        # An answer that is no call stays content, whole and streamed.
        plain = client.chat.completions.create(
            model="mock_llm", messages=[{"role": "user", "content": "x"}], tools=TOOLS,
            max_tokens=3)
        assert plain.choices[0].message.content == "w0 w1 w2"
        assert plain.choices[0].finish_reason == "stop"
        streamed = client.chat.completions.create(
            model="mock_llm", messages=[{"role": "user", "content": "x"}], tools=TOOLS,
            max_tokens=3, stream=True)
        assert "".join(ch.choices[0].delta.content or "" for ch in streamed) == "w0 w1 w2"


def test_a_tool_call_past_the_parse_limit_ends_with_length(server: conch.Server) -> None:
    for client in _tool_client(server, tool_call_parser="llama3", max_tool_call_parse_bytes=64):
        messages = [{"role": "user", "content": "LONGCALL"}]
        chunks = list(client.chat.completions.create(model="mock_llm", messages=messages,
                                                     tools=TOOLS, max_tokens=200, stream=True))
        assert chunks[-1].choices[0].finish_reason == "length"
        c = client.chat.completions.create(model="mock_llm", messages=messages, tools=TOOLS,
                                           max_tokens=200)
        assert c.choices[0].finish_reason == "length"


def test_an_unknown_tool_call_parser_is_refused(server: conch.Server) -> None:
    with pytest.raises(conch.InvalidArgumentError,
                       match="tool parser: 'hermes' not found in tool_call_parsers"):
        with OpenAI(server, OpenAI.Options(port=0, tool_call_parser="hermes")):
            pass


# -- hostile input and output ---------------------------------------------------------


def test_hostile_bodies_get_bounded_answers(frontend: OpenAI) -> None:
    port = frontend.port
    many = b'{"model":"mock_llm","messages":[' + b",".join([b"1"] * 500_000) + b"]}"
    status, reply = post(port, "/v1/chat/completions", many)
    assert status == 422 and len(reply["detail"]) == 100
    status, reply = post(port, "/v1/completions",
                         b'{"model":"mock_llm","prompt":"x","temperature":NaN}')
    assert status == 422 and reply["detail"][0]["type"] == "finite_number"
    status, reply = post(port, "/v1/completions", b'{"model":"\xff\xfe","prompt":"x"}')
    assert status == 422 and reply["detail"][0]["type"] == "json_invalid"
    status, reply = post(port, "/v1/completions",
                         {"model": "mock_trt", "prompt": "x", "max_tokens": 2**40})
    assert status == 400 and "does not fit" in reply["detail"]
    status, reply = post(port, "/v1/embeddings",
                         {"model": "mock_embed", "input": list(range(5000))})
    assert status == 200  # token ids are one input, however many


def test_what_a_model_writes_is_sent_as_valid_utf8(client: openai.OpenAI) -> None:
    whole = client.completions.create(model="mock_llm", prompt="UTF8")
    assert whole.choices[0].text == "\u20ac ok\ufffd"
    streamed = client.completions.create(model="mock_llm", prompt="UTF8", stream=True)
    assert "".join(c.choices[0].text for c in streamed) == "\u20ac ok\ufffd"


def test_log_probabilities_whole_and_streamed(client: openai.OpenAI) -> None:
    whole = client.completions.create(model="mock_llm", prompt="p", max_tokens=3, logprobs=2)
    lp = whole.choices[0].logprobs
    assert lp.tokens == ["w0", " w1", " w2"] and lp.text_offset == [0, 2, 5]
    assert lp.token_logprobs == [-0.25] * 3 and lp.top_logprobs[0] == {"w0": -0.25, "zz": -3.5}
    chunks = list(client.completions.create(model="mock_llm", prompt="p", max_tokens=3,
                                            logprobs=2, stream=True))
    streamed = [c.choices[0].logprobs for c in chunks if c.choices[0].logprobs]
    assert sum((s.tokens for s in streamed), []) == lp.tokens
    assert sum((s.text_offset for s in streamed), []) == lp.text_offset
    chat = client.chat.completions.create(model="mock_llm", max_tokens=2, logprobs=True,
                                          top_logprobs=2,
                                          messages=[{"role": "user", "content": "x"}])
    content = chat.choices[0].logprobs.content
    assert [t.token for t in content] == ["w0", " w1"]
    assert content[0].bytes == list(b"w0") and len(content[0].top_logprobs) == 2
    stream = client.chat.completions.create(model="mock_llm", max_tokens=2, logprobs=True,
                                            messages=[{"role": "user", "content": "x"}],
                                            stream=True)
    tokens = [t.token for c in stream if c.choices and c.choices[0].logprobs
              for t in c.choices[0].logprobs.content]
    assert tokens == ["w0", " w1"]
    plain = client.completions.create(model="mock_llm", prompt="p", max_tokens=1)
    assert plain.choices[0].logprobs is None


def test_lora_adapters_by_name(server: conch.Server) -> None:
    with OpenAI(server, OpenAI.Options(port=0, lora_separator="_lora_")) as f:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{f.port}/v1", api_key="EMPTY",
                               max_retries=0)
        ids = {m.id for m in client.models.list().data}
        assert {"mock_llm", "mock_llm_lora_doll", "mock_llm_lora_sheep"} <= ids
        assert client.models.retrieve("mock_llm_lora_sheep").id == "mock_llm_lora_sheep"
        c = client.completions.create(model="mock_llm_lora_doll", prompt="SAMPLING")
        assert c.model == "mock_llm_lora_doll"
        assert json.loads(c.choices[0].text)["lora_name"] == "doll"
        status, body = post(f.port, "/v1/completions",
                            {"model": "mock_llm_lora_cat", "prompt": "x"})
        assert (status, body) == (400, {"detail": "Unknown LoRA: cat; for model: "
                                                  "mock_llm_lora_cat"})
    # Without a separator a name is never split.
    with OpenAI(server, OpenAI.Options(port=0)) as f:
        status, body = post(f.port, "/v1/completions",
                            {"model": "mock_llm_lora_doll", "prompt": "x"})
        assert (status, body) == (400, {"detail": "Unknown model: mock_llm_lora_doll"})


def test_response_format_reaches_the_model_as_guided_decoding(client: openai.OpenAI) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    c = client.chat.completions.create(
        model="mock_llm", messages=[{"role": "user", "content": "SAMPLING"}],
        response_format={"type": "json_schema", "json_schema": {"name": "s", "schema": schema}})
    assert json.loads(c.choices[0].message.content)["structured_outputs"] == {"json": schema}
    c = client.chat.completions.create(
        model="mock_llm", messages=[{"role": "user", "content": "SAMPLING"}],
        response_format={"type": "json_object"})
    assert json.loads(c.choices[0].message.content)["structured_outputs"] == {
        "json_object": True}
    c = client.chat.completions.create(
        model="mock_llm", messages=[{"role": "user", "content": "SAMPLING"}],
        response_format={"type": "text"})
    assert "structured_outputs" not in json.loads(c.choices[0].message.content)


@pytest.fixture(scope="module")
def counting_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A tokenizer folder of our own: the chat template above and a word-level
    tokenizer.json built here with the `tokenizers` package."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = tmp_path_factory.mktemp("tokenizer")
    shutil.copy(MODELS / "tokenizer" / "tokenizer_config.json", folder)
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "hello": 1, "there": 2}, "[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def test_a_tokenizer_counts_what_a_model_does_not(server: conch.Server,
                                                  counting_tokenizer: pathlib.Path) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(counting_tokenizer / "tokenizer.json"))

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    with OpenAI(server, OpenAI.Options(port=0, tokenizer=str(counting_tokenizer))) as f:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{f.port}/v1", api_key="EMPTY",
                               max_retries=0)
        c = client.completions.create(model="mock_trt", prompt="hello there", max_tokens=3)
        text = c.choices[0].text
        assert (c.usage.prompt_tokens, c.usage.completion_tokens) == (2, count(text))
        chunks = list(client.completions.create(model="mock_trt", prompt="hello there",
                                                max_tokens=3, stream=True,
                                                stream_options={"include_usage": True}))
        assert chunks[-1].usage == c.usage
        chat = client.chat.completions.create(model="mock_trt",
                                              messages=[{"role": "user", "content": "hi"}])
        prompt = "<s>[user] hi\n[assistant]"
        assert chat.usage.prompt_tokens == count(prompt)
        assert chat.usage.completion_tokens == count(chat.choices[0].message.content)
        # A model's own counts win.
        own = client.completions.create(model="mock_llm", prompt="a b c", max_tokens=2)
        assert (own.usage.prompt_tokens, own.usage.completion_tokens) == (3, 2)
