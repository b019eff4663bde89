"""The README's code, as tests run it: the blocks of a section, and the
output their comments promise.

A line like ``print(result.reason)   # INTERRUPT`` promises that the
program prints ``INTERRUPT`` there; ``…`` in a promise stands for anything.
:func:`promised_in_order` checks that a program's output holds every promise
of its code, in order (whitespace runs compare equal), so the README's
comments cannot drift from what the code really prints.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

__all__ = ["README", "pages", "blocks", "grpcurl", "grpcurl_commands", "promises", "promised_in_order", "section", "typescript_project"]

README = Path(__file__).resolve().parent.parent / "README.md"


def grpcurl_commands(code: str) -> list[tuple[str, str]]:
    """(JSON body, full method name) of each grpcurl command in the shell code ``code``."""
    import shlex

    commands = []
    for command in code.replace("\\\n", " ").splitlines():
        words = shlex.split(command, comments=True)
        if words[:1] == ["grpcurl"]:
            commands.append((words[words.index("-d") + 1], words[-1]))
    return commands


def grpcurl(channel: grpc.Channel, method: str, body: str) -> list[str]:
    """What ``grpcurl -d BODY ADDRESS METHOD`` prints: one JSON text per response message.

    As grpcurl does it: the descriptors from the server's reflection service
    (no stubs), the request parsed from JSON and each response printed with the
    proto3 JSON mapping.
    """
    pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    service_name, method_name = method.rsplit("/", 1)
    rpc = pool.FindServiceByName(service_name).FindMethodByName(method_name)
    request_class = message_factory.GetMessageClass(rpc.input_type)
    response_class = message_factory.GetMessageClass(rpc.output_type)
    request = json_format.Parse(body, request_class())
    call = (channel.unary_stream if rpc.server_streaming else channel.unary_unary)(
        f"/{service_name}/{method_name}",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=response_class.FromString,
    )
    replies = call(request, timeout=30)
    return [json_format.MessageToJson(m) for m in (replies if rpc.server_streaming else [replies])]


@contextlib.contextmanager
def typescript_project(project: Path) -> Iterator[Path]:
    """A Node project that installed clients/typescript as the README says (built first if it is not).

    For the block: the TypeScript client's own test script (tests/clients)
    builds its ``dist/`` again, which the project links, so it waits until then.
    """
    from tests._needs import npm_ci, repo_lock, require_node

    require_node("the README's TypeScript code")
    package = README.parent / "clients" / "typescript"
    with repo_lock("typescript-client"):
        npm_ci(package)
        if not (package / "dist" / "index.js").exists():  # what `npm run build` makes; test.sh rebuilds it too
            subprocess.run(["npm", "run", "--silent", "build"], cwd=package, check=True, timeout=300)
        project.mkdir(parents=True, exist_ok=True)
        npm = shutil.which("npm")
        assert npm is not None
        installed = subprocess.run(
            [npm, "install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", str(package)],
            cwd=project, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        yield project


def pages() -> list[Path]:
    """The README and the documentation site's pages (docs/), README first, then in name order."""
    return [README, *sorted((README.parent / "docs").glob("*.md"))]


def section(heading: str) -> str:
    """The section headed ``## heading`` (up to the next one), prose and code, in the README or a docs page."""
    for page in pages():
        text = page.read_text("utf-8")
        start = text.find(f"\n## {heading}\n")
        if start != -1:
            end = text.find("\n## ", start + 1)
            return text[start : end if end != -1 else len(text)]
    raise ValueError(f"no section '## {heading}' in README.md or docs/*.md")


def blocks(heading: str, lang: str) -> list[str]:
    """The ``lang`` code blocks of the section headed ``heading`` (up to the next one)."""
    return re.findall(rf"```{lang}\n(.*?)```", section(heading), re.DOTALL)


def promises(code: str, marker: str) -> list[str]:
    """What the print lines of ``code`` promise: the comment after ``marker`` on each printing line."""
    out = []
    for line in code.splitlines():
        body, sep, comment = line.partition(f"{marker} ")
        if sep and re.search(r"\b(print|console\.log|process\.stdout\.write|fmt\.Print\w*)\(", body):
            out.append(comment.strip())
    return out


def promised_in_order(output: str, promised: list[str]) -> list[str]:
    """The promises ``output`` does not keep (empty: all kept, in order)."""
    broken, pos = [], 0
    for promise in promised:
        parts = [r"\s+".join(map(re.escape, p.split())) for p in promise.split("…")]
        found = re.compile(".*?".join(parts), re.DOTALL).search(output, pos)
        if found is None:
            broken.append(promise)
        else:
            pos = found.end()
    return broken
