"""conch.frontend.KServeGrpc's transport options, with the real
tritonclient.grpc: TLS and mutual TLS with certificates made here by
openssl, compressed requests and responses (bytes counted on the wire),
keepalive settings, request metadata forwarded to a Python model as
parameters, and how the options are validated (tritonfrontend's rules)."""

from __future__ import annotations

import json
import logging
import pathlib
import queue
import shutil
import socket
import subprocess
import threading
from typing import Any, Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc

from conftest import identity_config, write_model

WAIT = 30
MODELS = pathlib.Path(__file__).resolve().parent / "python_models"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    repository = tmp_path_factory.mktemp("kserve_grpc_options")
    write_model(repository, "identity_fp32", identity_config("TYPE_FP32"))
    shutil.copytree(MODELS / "echo", repository / "echo")
    server = conch.Server(
        model_repository=str(repository),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["identity_fp32", "echo"],
    ).start(wait_until_ready=True)
    yield server
    server.stop()


def fp32_input(array: numpy.ndarray) -> list[grpcclient.InferInput]:
    tensor = grpcclient.InferInput("INPUT0", list(array.shape), "FP32")
    tensor.set_data_from_numpy(array)
    return [tensor]


def infer_identity(client: grpcclient.InferenceServerClient, n: int = 16,
                   **kwargs: Any) -> None:
    array = numpy.arange(n, dtype=numpy.float32)
    result = client.infer("identity_fp32", fp32_input(array), **kwargs)
    assert result.as_numpy("OUTPUT0").tolist() == array.tolist()


# -- TLS ---------------------------------------------------------------------------------


def openssl(*args: str, cwd: pathlib.Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A CA, a server certificate for localhost and 127.0.0.1, and a client
    certificate, both signed by the CA; another CA that signed nothing."""
    d = tmp_path_factory.mktemp("certificates")
    for ca in ("ca", "other_ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", f"/CN=Conch test {ca}", "-keyout", f"{ca}.key", "-out", f"{ca}.crt",
                cwd=d)
    (d / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for name, ext in (("server", ["-extfile", "server.ext"]), ("client", [])):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
                "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-out", f"{name}.crt", *ext, cwd=d)
    return d


def tls_options(certs: pathlib.Path, **kwargs: Any) -> KServeGrpc.Options:
    return KServeGrpc.Options(address="127.0.0.1", port=0, use_ssl=True,
                              server_cert=str(certs / "server.crt"),
                              server_key=str(certs / "server.key"), **kwargs)


def tls_client(port: int, certs: pathlib.Path, ca: str = "ca.crt",
               client_cert: bool = False) -> grpcclient.InferenceServerClient:
    extra = {}
    if client_cert:
        extra = {"private_key": str(certs / "client.key"),
                 "certificate_chain": str(certs / "client.crt")}
    return grpcclient.InferenceServerClient(f"localhost:{port}", ssl=True,
                                            root_certificates=str(certs / ca), **extra)


def test_tls(server: conch.Server, certificates: pathlib.Path) -> None:
    with KServeGrpc(server, tls_options(certificates)) as grpc:
        client = tls_client(grpc.port, certificates)
        infer_identity(client)
        client.close()
        # A client that does not trust the server's CA fails its handshake.
        distrust = tls_client(grpc.port, certificates, ca="other_ca.crt")
        with pytest.raises(InferenceServerException):
            distrust.is_server_live(client_timeout=WAIT)
        distrust.close()
        # So does a plaintext client.
        plain = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        with pytest.raises(InferenceServerException):
            plain.is_server_live(client_timeout=WAIT)
        plain.close()


def test_mutual_tls(server: conch.Server, certificates: pathlib.Path) -> None:
    options = tls_options(certificates, use_mutual_auth=True,
                          root_cert=str(certificates / "ca.crt"))
    with KServeGrpc(server, options) as grpc:
        client = tls_client(grpc.port, certificates, client_cert=True)
        infer_identity(client)
        stream_results: queue.Queue = queue.Queue()
        client.start_stream(callback=lambda result, error: stream_results.put((result, error)))
        client.async_stream_infer("identity_fp32", fp32_input(numpy.ones(4, numpy.float32)))
        result, error = stream_results.get(timeout=WAIT)
        assert error is None and result.as_numpy("OUTPUT0").tolist() == [1.0] * 4
        client.stop_stream()
        client.close()
        # Without a client certificate the server refuses the connection.
        anonymous = tls_client(grpc.port, certificates)
        with pytest.raises(InferenceServerException):
            infer_identity(anonymous, client_timeout=WAIT)
        anonymous.close()


def test_tls_files_are_read_at_start(server: conch.Server, certificates: pathlib.Path,
                                     tmp_path: pathlib.Path) -> None:
    missing = str(tmp_path / "missing.pem")
    with pytest.raises(conch.InvalidArgumentError, match="cannot read server_cert"):
        KServeGrpc(server, KServeGrpc.Options(port=0, use_ssl=True, server_cert=missing,
                                              server_key=missing)).start()
    with pytest.raises(conch.InvalidArgumentError, match="use_ssl needs server_key"):
        KServeGrpc(server, KServeGrpc.Options(
            port=0, use_ssl=True, server_cert=str(certificates / "server.crt"))).start()
    with pytest.raises(conch.InvalidArgumentError, match="use_mutual_auth needs root_cert"):
        KServeGrpc(server, tls_options(certificates, use_mutual_auth=True)).start()
    # A key that does not match the certificate fails the start too.
    with pytest.raises(conch.UnavailableError, match="server_key a certificate and its key"):
        KServeGrpc(server, KServeGrpc.Options(
            address="127.0.0.1", port=0, use_ssl=True,
            server_cert=str(certificates / "server.crt"),
            server_key=str(certificates / "client.key"))).start()


# -- compression ---------------------------------------------------------------------------


class CountingProxy:
    """Forwards TCP connections from its own port to `port`, counting the
    bytes of each direction. A byte is counted before it is passed on, so
    once a client has its response, the count holds it."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.to_server = 0
        self.to_client = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = [self._listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                downstream, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self._sockets += [downstream, upstream]
            threading.Thread(target=self._pump, args=(downstream, upstream, "to_server"),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, downstream, "to_client"),
                             daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, counter: str) -> None:
        try:
            while data := source.recv(65536):
                with self._lock:
                    setattr(self, counter, getattr(self, counter) + len(data))
                sink.sendall(data)
        except OSError:
            pass
        finally:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        for s in self._sockets:
            s.close()


def wire_bytes(server: conch.Server, level: int, algorithm: str | None) -> tuple[int, int]:
    """(bytes to the server, bytes to the client) of one identity infer of
    1 MiB of zeros through a frontend with `level`."""
    options = KServeGrpc.Options(address="127.0.0.1", port=0, infer_compression_level=level)
    with KServeGrpc(server, options) as grpc:
        proxy = CountingProxy(grpc.port)
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{proxy.port}")
        zeros = numpy.zeros(1 << 18, dtype=numpy.float32)
        result = client.infer("identity_fp32", fp32_input(zeros), compression_algorithm=algorithm)
        assert result.as_numpy("OUTPUT0").tolist() == zeros.tolist()
        counts = (proxy.to_server, proxy.to_client)
        client.close()
        proxy.close()
    return counts


def test_compressed_requests_and_responses(server: conch.Server) -> None:
    size = 1 << 20
    to_server, to_client = wire_bytes(server, KServeGrpc.Grpc_compression_level.NONE, None)
    assert to_server > size and to_client > size
    for algorithm in ("gzip", "deflate"):
        to_server, to_client = wire_bytes(server, KServeGrpc.Grpc_compression_level.HIGH,
                                          algorithm)
        assert to_server < size // 4, algorithm
        assert to_client < size // 4, algorithm
    # LOW and MED compress too; the client sends plain data.
    for level in (KServeGrpc.Grpc_compression_level.LOW, KServeGrpc.Grpc_compression_level.MED):
        to_server, to_client = wire_bytes(server, level, None)
        assert to_server > size and to_client < size // 4


# -- keepalive -----------------------------------------------------------------------------


def test_keepalive_options_serve_calls(server: conch.Server) -> None:
    options = KServeGrpc.Options(
        address="127.0.0.1", port=0, keepalive_time_ms=1000, keepalive_timeout_ms=500,
        keepalive_permit_without_calls=True, http2_max_pings_without_data=0,
        http2_min_recv_ping_interval_without_data_ms=100, http2_max_ping_strikes=0,
        max_connection_age_ms=600_000, max_connection_age_grace_ms=1000)
    keepalive = grpcclient.KeepAliveOptions(keepalive_time_ms=1000, keepalive_timeout_ms=500,
                                            keepalive_permit_without_calls=True,
                                            http2_max_pings_without_data=0)
    with KServeGrpc(server, options) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}",
                                                  keepalive_options=keepalive)
        for _ in range(3):
            infer_identity(client)
        client.close()


# -- forwarded metadata ----------------------------------------------------------------------


def echo_parameters(result: grpcclient.InferResult) -> dict:
    return json.loads(result.as_numpy("INFO")[0])["parameters"]


def echo_input() -> list[grpcclient.InferInput]:
    tensor = grpcclient.InferInput("INPUT0", [1], "BYTES")
    tensor.set_data_from_numpy(numpy.array([b"hi"], dtype=numpy.object_))
    return [tensor]


def test_forward_header_pattern(server: conch.Server) -> None:
    # The pattern matches without regard to case; gRPC keys are lowercase.
    options = KServeGrpc.Options(address="127.0.0.1", port=0, forward_header_pattern="^X-")
    with KServeGrpc(server, options) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        result = client.infer("echo", echo_input(), parameters={"own": "yes"},
                              headers={"x-tenant": "blue", "x-trace": "t1", "other": "no"})
        params = echo_parameters(result)
        assert params == {"own": "yes", "x-tenant": "blue", "x-trace": "t1"}
        # A stream forwards the metadata it was opened with to each request.
        results: queue.Queue = queue.Queue()
        client.start_stream(callback=lambda result, error: results.put((result, error)),
                            headers={"x-stream": "s1"})
        for _ in range(2):
            client.async_stream_infer("echo", echo_input())
        for _ in range(2):
            r, e = results.get(timeout=WAIT)
            assert e is None
            assert echo_parameters(r) == {"x-stream": "s1"}
        client.stop_stream()
        client.close()


def test_forwarding_is_off_by_default(server: conch.Server) -> None:
    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        result = client.infer("echo", echo_input(), headers={"x-tenant": "blue"})
        assert echo_parameters(result) == {}
        client.close()


def test_forwarded_reserved_names_are_refused(server: conch.Server) -> None:
    options = KServeGrpc.Options(address="127.0.0.1", port=0,
                                 forward_header_pattern="^(x-|triton_)")
    with KServeGrpc(server, options) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        with pytest.raises(InferenceServerException,
                           match="Header 'triton_mine' is reserved") as e:
            client.infer("echo", echo_input(), headers={"triton_mine": "1"})
        assert e.value.status() == "StatusCode.INVALID_ARGUMENT"
        client.close()


# -- validation ----------------------------------------------------------------------------

INT_FIELDS = ("keepalive_time_ms", "keepalive_timeout_ms", "http2_max_pings_without_data",
              "http2_min_recv_ping_interval_without_data_ms", "http2_max_ping_strikes",
              "max_connection_age_ms", "max_connection_age_grace_ms", "infer_thread_count",
              "infer_allocation_pool_size", "max_response_pool_size")


def test_defaults_are_upstreams() -> None:
    o = KServeGrpc.Options()
    assert (o.use_ssl, o.server_cert, o.server_key, o.root_cert, o.use_mutual_auth) == (
        False, "", "", "", False)
    assert (o.keepalive_time_ms, o.keepalive_timeout_ms, o.keepalive_permit_without_calls) == (
        7_200_000, 20_000, False)
    assert (o.http2_max_pings_without_data, o.http2_min_recv_ping_interval_without_data_ms,
            o.http2_max_ping_strikes) == (2, 300_000, 2)
    assert (o.max_connection_age_ms, o.max_connection_age_grace_ms) == (0, 0)
    assert (o.infer_compression_level, o.infer_thread_count, o.infer_allocation_pool_size,
            o.max_response_pool_size, o.forward_header_pattern) == (0, 2, 8, 2_147_483_647, "")


@pytest.mark.parametrize("field", INT_FIELDS)
def test_int_fields_are_non_negative_and_coerced(field: str) -> None:
    with pytest.raises(Exception):
        KServeGrpc.Options(**{field: -1})
    with pytest.raises(Exception):
        KServeGrpc.Options(**{field: "ten"})
    assert getattr(KServeGrpc.Options(**{field: "12"}), field) == 12
    assert getattr(KServeGrpc.Options(**{field: 0}), field) == 0


@pytest.mark.parametrize("field", ("server_cert", "server_key", "root_cert",
                                   "forward_header_pattern"))
def test_str_fields_refuse_numbers(field: str) -> None:
    with pytest.raises(Exception):
        KServeGrpc.Options(**{field: 10})


def test_positional_construction_in_field_order() -> None:
    o = KServeGrpc.Options("127.0.0.1", 9001, True, True, "c.pem", "k.pem", "ca.pem", True,
                           1000)
    assert (o.address, o.port, o.reuse_port, o.use_ssl, o.server_cert, o.server_key,
            o.root_cert, o.use_mutual_auth, o.keepalive_time_ms) == (
        "127.0.0.1", 9001, True, True, "c.pem", "k.pem", "ca.pem", True, 1000)


def test_assignment_is_not_validated_but_start_checks(server: conch.Server) -> None:
    o = KServeGrpc.Options(port=0)
    o.keepalive_time_ms = -5
    with pytest.raises(conch.InvalidArgumentError, match="keepalive_time_ms must be >= 0"):
        KServeGrpc(server, o).start()


def test_start_checks_the_level_and_the_pattern(server: conch.Server) -> None:
    # The level has no range check at construction, as upstream's.
    level = KServeGrpc.Options(port=0, infer_compression_level=7)
    with pytest.raises(conch.InvalidArgumentError, match="infer_compression_level"):
        KServeGrpc(server, level).start()
    pattern = KServeGrpc.Options(port=0, forward_header_pattern="(")
    with pytest.raises(conch.InvalidArgumentError, match="forward_header_pattern"):
        KServeGrpc(server, pattern).start()


def test_tuning_fields_are_accepted_with_a_warning(server: conch.Server,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="conch"):
        grpc = KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0,
                                                     infer_thread_count=4))
        grpc.start()
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        infer_identity(client)
        client.close()
        grpc.stop()
    assert "infer_thread_count" in caplog.text


# -- conch serve -----------------------------------------------------------------------------


def test_conch_serve_grpc_tls_flags(certificates: pathlib.Path) -> None:
    from conftest import EXAMPLE_REPOSITORY
    from test_serve import DEADLINE_S, GRPC, Serve

    process = Serve("--model-repository", str(EXAMPLE_REPOSITORY), "--allow-http", "false",
                    "--allow-metrics", "false", "--grpc-address", "127.0.0.1",
                    "--grpc-use-ssl-mutual", "--grpc-server-cert", str(certificates / "server.crt"),
                    "--grpc-server-key", str(certificates / "server.key"),
                    "--grpc-root-cert", str(certificates / "ca.crt"),
                    "--grpc-infer-compression-level", "high",
                    "--grpc-header-forward-pattern", "^x-")
    try:
        port = int(process.wait_for(GRPC).group(1))
        client = tls_client(port, certificates, client_cert=True)
        tensor = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(numpy.arange(16, dtype=numpy.float32).reshape(1, 16))
        out = client.infer("identity_fp32", [tensor], headers={"x-tenant": "blue"})
        assert out.as_numpy("OUTPUT0").ravel().tolist() == [float(i) for i in range(16)]
        client.close()
        anonymous = tls_client(port, certificates)
        with pytest.raises(InferenceServerException):
            anonymous.is_server_live(client_timeout=WAIT)
        anonymous.close()
        process.process.terminate()
        assert process.process.wait(timeout=DEADLINE_S) == 0
    finally:
        process.kill()


def test_conch_serve_reports_a_tls_file_it_cannot_read(tmp_path: pathlib.Path) -> None:
    from conftest import EXAMPLE_REPOSITORY
    from test_serve import DEADLINE_S, Serve

    missing = str(tmp_path / "missing.pem")
    process = Serve("--model-repository", str(EXAMPLE_REPOSITORY), "--allow-http", "false",
                    "--allow-metrics", "false", "--grpc-use-ssl", "--grpc-server-cert", missing,
                    "--grpc-server-key", missing)
    try:
        assert process.process.wait(timeout=DEADLINE_S) == 1
        assert any("cannot read server_cert" in line for line in process.rest())
    finally:
        process.kill()


def test_max_message_size_refuses_larger_requests(server: conch.Server) -> None:
    options = KServeGrpc.Options(address="127.0.0.1", port=0, max_message_size=4096)
    assert KServeGrpc.Options().max_message_size == 2**31 - 1
    with KServeGrpc(server, options) as frontend:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{frontend.port}")
        try:
            data = numpy.zeros((1, 4096), dtype=numpy.float32)
            tensor = grpcclient.InferInput("INPUT0", list(data.shape), "FP32")
            tensor.set_data_from_numpy(data)
            with pytest.raises(InferenceServerException) as raised:
                client.infer("identity_fp32", inputs=[tensor])
            assert "RESOURCE_EXHAUSTED" in str(raised.value.status())
        finally:
            client.close()
    with pytest.raises(ValueError):
        KServeGrpc.Options(max_message_size=0)
