"""The .proto is the API reference for callers in every language, so every
service, method, message, field, oneof, enum and enum value in it carries a
comment of its own."""

from __future__ import annotations

from pathlib import Path

import grpc_tools
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

REPO = Path(__file__).resolve().parents[2]
PROTO_ROOT = REPO / "proto"

# Field numbers of the descriptor messages, as SourceCodeInfo paths use them.
FILE_MESSAGE, FILE_ENUM, FILE_SERVICE = 4, 5, 6
MESSAGE_FIELD, MESSAGE_NESTED, MESSAGE_ENUM, MESSAGE_ONEOF = 2, 3, 4, 8
ENUM_VALUE = 2
SERVICE_METHOD = 2


def _descriptors(tmp_path: Path) -> descriptor_pb2.FileDescriptorSet:
    out = tmp_path / "set.pb"
    protos = sorted(str(p) for p in PROTO_ROOT.rglob("*.proto"))
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    status = protoc.main(
        [
            "protoc",
            f"-I{PROTO_ROOT}",
            f"-I{well_known}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *protos,
        ]
    )
    assert status == 0
    return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _undocumented(file: descriptor_pb2.FileDescriptorProto) -> list[str]:
    comments = {
        tuple(loc.path): loc.leading_comments.strip() or loc.trailing_comments.strip()
        for loc in file.source_code_info.location
    }
    missing: list[str] = []

    def need(path: tuple[int, ...], name: str) -> None:
        if not comments.get(path):
            missing.append(name)

    def enum(path: tuple[int, ...], e: descriptor_pb2.EnumDescriptorProto, prefix: str) -> None:
        need(path, f"{prefix}{e.name}")
        for i, value in enumerate(e.value):
            need((*path, ENUM_VALUE, i), f"{prefix}{e.name}.{value.name}")

    def message(path: tuple[int, ...], m: descriptor_pb2.DescriptorProto, prefix: str) -> None:
        if m.options.map_entry:  # synthesized by protoc for map<,> fields
            return
        need(path, f"{prefix}{m.name}")
        for i, field in enumerate(m.field):
            need((*path, MESSAGE_FIELD, i), f"{prefix}{m.name}.{field.name}")
        for i, oneof in enumerate(m.oneof_decl):
            if not oneof.name.startswith("_"):  # proto3 `optional` makes a synthetic oneof
                need((*path, MESSAGE_ONEOF, i), f"{prefix}{m.name}.{oneof.name} (oneof)")
        for i, nested in enumerate(m.nested_type):
            message((*path, MESSAGE_NESTED, i), nested, f"{prefix}{m.name}.")
        for i, nested_enum in enumerate(m.enum_type):
            enum((*path, MESSAGE_ENUM, i), nested_enum, f"{prefix}{m.name}.")

    for i, m in enumerate(file.message_type):
        message((FILE_MESSAGE, i), m, "")
    for i, e in enumerate(file.enum_type):
        enum((FILE_ENUM, i), e, "")
    for i, service in enumerate(file.service):
        need((FILE_SERVICE, i), service.name)
        for j, method in enumerate(service.method):
            need((FILE_SERVICE, i, SERVICE_METHOD, j), f"{service.name}.{method.name}")
    return missing


def test_every_element_of_the_proto_is_documented(tmp_path: Path) -> None:
    files = [f for f in _descriptors(tmp_path).file if f.name.startswith("graphwire/")]
    assert files
    for file in files:
        assert _undocumented(file) == [], f"undocumented in {file.name}"


def test_service_has_the_rpcs_of_the_design(tmp_path: Path) -> None:
    (file,) = [f for f in _descriptors(tmp_path).file if f.name == "graphwire/v1/graphwire.proto"]
    assert file.package == "graphwire.v1"
    (service,) = file.service
    assert service.name == "GraphService"
    methods = {m.name: m.server_streaming for m in service.method}
    assert methods == {
        "Invoke": True,
        "Resume": True,
        "Fork": True,
        "GetState": False,
        "ListHistory": False,
        "UpdateState": False,
        "ListGraphs": False,
        "GetGraph": False,
        "CancelRun": False,
        "DeleteThread": False,
        # The store (issue 18): long-term memory shared by threads.
        "PutItem": False,
        "GetItem": False,
        "SearchItems": False,
        "DeleteItem": False,
        "ListNamespaces": False,
        # Durable turns (issue 20): joining a run's stream, reading run records.
        "JoinRun": True,
        "GetRun": False,
        "ListRuns": False,
        # Thread records (issue 33): search, metadata, status, copy, prune.
        "CreateThread": False,
        "GetThread": False,
        "UpdateThread": False,
        "SearchThreads": False,
        "CountThreads": False,
        "CopyThread": False,
        "PruneThread": False,
        # Assistants (issue 33 item 5): versioned configurations of the graphs.
        "CreateAssistant": False,
        "GetAssistant": False,
        "UpdateAssistant": False,
        "SetAssistantVersion": False,
        "ListAssistantVersions": False,
        "SearchAssistants": False,
        "CountAssistants": False,
        "DeleteAssistant": False,
    }
