"""Connection settings shared by both clients: credentials, options, metadata."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc

from graphwire._version import __version__

__all__ = ["CallMetadata", "ChannelOptions", "auth_metadata", "call_metadata", "channel_options", "credentials", "pool_size"]

CallMetadata = Sequence[tuple[str, str | bytes]]
ChannelOptions = Sequence[tuple[str, Any]]

#: Run states and histories can be large (a long conversation, every version
#: of it); the server caps what it sends, so the client accepts up to this.
DEFAULT_MAX_RECEIVE = 64 * 1024 * 1024

_DEFAULT_OPTIONS: ChannelOptions = (
    ("grpc.primary_user_agent", f"graphwire-python/{__version__}"),
    ("grpc.max_receive_message_length", DEFAULT_MAX_RECEIVE),
)


def credentials(tls: bool | bytes) -> grpc.ChannelCredentials | None:
    """``tls=False``: plaintext (None); ``True``: the system's roots; bytes: these PEM roots."""
    if tls is False:
        return None
    if tls is True:
        return grpc.ssl_channel_credentials()
    if isinstance(tls, bytes):
        return grpc.ssl_channel_credentials(root_certificates=tls)
    raise TypeError(f"tls must be a bool or PEM root certificates as bytes, not {type(tls).__name__}")


def pool_size(channels: int) -> int:
    """``channels``, checked: a whole number of connections, at least 1."""
    if isinstance(channels, bool) or not isinstance(channels, int) or not 1 <= channels <= 1024:
        raise ValueError(f"channels must be a whole number from 1 to 1024, not {channels!r}")
    return channels


def channel_options(options: ChannelOptions, channels: int = 1) -> list[tuple[str, Any]]:
    """The client's defaults, overridden by the caller's ``options``.

    With several ``channels``, each keeps a connection of its own: gRPC
    otherwise shares one among channels made with the same options.
    """
    merged = dict(_DEFAULT_OPTIONS)
    if channels > 1:
        merged["grpc.use_local_subchannel_pool"] = 1
    merged.update(dict(options))
    return list(merged.items())


def auth_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    if token is None:
        return ()
    if not token:
        raise ValueError("token is empty; pass None for no token")
    return (("authorization", f"Bearer {token}"),)


def call_metadata(base: CallMetadata, extra: CallMetadata | None) -> tuple[tuple[str, str | bytes], ...]:
    """The metadata of one call: the client's (its token) then the call's own
    (``metadata=``, e.g. W3C ``traceparent``)."""
    return (*base, *(extra or ()))
