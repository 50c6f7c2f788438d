"""A decoupled text model in vLLM's convention, for the OpenAI frontend's
tests: it answers max_tokens words "w0 w1 ...", one response per word when
streaming, with token counts (the prompt's words, the answer's words).

A prompt containing FAIL fails after two words; one containing SLOW waits
20 ms per word and writes "<CONCH_TEST_CANCEL_DIR>/<request id or
'cancelled'>" when it sees the request cancelled; one containing SAMPLING
answers the sampling_parameters JSON it got as its text. One containing
TOOLCALL answers a Llama 3 tool call, MISTRAL a Mistral one, LONGCALL a
Llama 3 call that never ends, in pieces of 6 characters; UTF8 a character
split between responses and a byte that is no UTF-8."""

import json
import os
import threading
import time

import numpy as np
import triton_python_backend_utils as pb_utils


def _scalar(request, name, default):
    t = pb_utils.get_input_tensor_by_name(request, name)
    if t is None:
        return default
    v = t.as_numpy().reshape(-1)[0]
    return v.decode() if isinstance(v, bytes) else v


def _logprobs(pieces, start):
    # vLLM's format: per token {id: {logprob, rank, decoded_token}}, the
    # chosen one rank 1 and one runner-up.
    return json.dumps([{str(start + i): {"logprob": -0.25, "rank": 1, "decoded_token": p},
                        "999": {"logprob": -3.5, "rank": 2, "decoded_token": "zz"}}
                       for i, p in enumerate(pieces)])


def _response(text, prompt_tokens=None, completion_tokens=None, logprobs=None):
    raw = text if isinstance(text, bytes) else text.encode()
    tensors = [pb_utils.Tensor("text_output", np.array([raw], dtype=np.object_))]
    if logprobs is not None:
        tensors.append(pb_utils.Tensor("logprobs", np.array([logprobs.encode()],
                                                            dtype=np.object_)))
    if prompt_tokens is not None:
        tensors.append(pb_utils.Tensor("num_input_tokens", np.array([prompt_tokens], dtype=np.int32)))
    if completion_tokens is not None:
        tensors.append(pb_utils.Tensor("num_output_tokens",
                                       np.array([completion_tokens], dtype=np.int32)))
    return pb_utils.InferenceResponse(output_tensors=tensors)


class TritonPythonModel:
    def initialize(self, args):
        self.threads = []

    def execute(self, requests):
        for request in requests:
            thread = threading.Thread(target=self.answer, args=(request,))
            thread.start()
            self.threads.append(thread)
        return None

    def answer(self, request):
        sender = request.get_response_sender()
        final = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
        prompt = _scalar(request, "text_input", "")
        stream = bool(_scalar(request, "stream", False))
        params = json.loads(_scalar(request, "sampling_parameters", "{}") or "{}")
        echo = not bool(_scalar(request, "exclude_input_in_output", True))
        counts = bool(_scalar(request, "return_num_output_tokens", False))
        with_logprobs = bool(_scalar(request, "return_logprobs", False))
        max_tokens = int(params.get("max_tokens", 16))
        pieces = [f"w{i}" if i == 0 else f" w{i}" for i in range(max_tokens)]
        if "SAMPLING" in prompt:
            pieces = [json.dumps(params, sort_keys=True)]
        call = None
        if "TOOLCALL" in prompt:
            call = '{"name": "weather", "parameters": {"city": "Oslo"}}'
        elif "MISTRAL" in prompt:
            call = '[TOOL_CALLS] [{"name": "weather", "arguments": {"city": "Oslo"}}]'
        elif "LONGCALL" in prompt:
            call = '{"name": "f", "parameters": {"x": "' + "a" * 6 * max_tokens
        if call is not None:
            pieces = [call[i:i + 6] for i in range(0, len(call), 6)]
        if "UTF8" in prompt:
            # A euro sign split between two responses, then a stray byte.
            pieces = [b"\xe2\x82", b"\xac ok", b"\xff"]
        prompt_tokens = len(prompt.split()) if counts else None
        if not stream:
            text = (prompt.encode() if echo else b"") + b"".join(
                p if isinstance(p, bytes) else p.encode() for p in pieces)
            if "FAIL" in prompt:
                sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError("mock failure")),
                            flags=final)
                return
            sender.send(_response(text, prompt_tokens, len(pieces) if counts else None,
                                  _logprobs(pieces, 0) if with_logprobs else None),
                        flags=final)
            return
        if echo:
            sender.send(_response(prompt, prompt_tokens, 0 if counts else None))
            prompt_tokens = None if not counts else 0
        for i, piece in enumerate(pieces):
            if request.is_cancelled():
                directory = os.environ.get("CONCH_TEST_CANCEL_DIR")
                if directory:
                    with open(os.path.join(directory, "cancelled"), "w") as f:
                        f.write(prompt)
                sender.send(flags=final)
                return
            if "FAIL" in prompt and i == 2:
                sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError("mock failure")),
                            flags=final)
                return
            if "SLOW" in prompt:
                time.sleep(0.02)
            first_count = prompt_tokens if i == 0 else None
            sender.send(_response(piece, first_count, 1 if counts else None,
                                  _logprobs([piece], i) if with_logprobs else None))
        sender.send(flags=final)

    def finalize(self):
        for thread in self.threads:
            thread.join()
