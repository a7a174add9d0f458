"""Addresses fit for an error line: the one helper every message that names a URL goes through.

An address a user typed (an OTLP ``--endpoint``, a dask ``--scheduler``) may carry a credential:
``http://user:pass@host``, ``https://host/v1?api_key=...``, ``tcp://user:p/ss w'rd@host:8786``
(a password may hold ``/``, spaces or quotes), ``inproc://user:pass``. :func:`redact_address`
hides those parts of one address; :func:`redact_addresses` hides them in a whole message, both
for addresses the caller names (however they are quoted: ``repr`` or plain) and for any other
``scheme://...`` it finds. The CLI passes every error line through :func:`redact_addresses`.

Example:
    >>> redact_address("tcp://user:pw@10.0.0.1:8786")
    'tcp://«redacted»@10.0.0.1:8786'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["redact_address", "redact_addresses"]

PLACEHOLDER = "«redacted»"

_URL = re.compile(r"(?i)(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,31}://[^\s'\"<>]+")
"""An address in free text: a bounded scheme (so a long run of letters is scanned once) then
the characters up to a space or a quote."""

_VALUE = re.compile(r"([?&#;][^=&#;?]*=)[^&#;]*")
"""A ``key=value`` of a query or fragment: the value is hidden, the key kept."""


def redact_address(address: str) -> str:
    """``address`` with its userinfo (everything before the last ``@``), the values of its query
    and fragment, and any non-port text after a host's ``:`` replaced by ``«redacted»``."""
    return _split(address)[0]


def redact_addresses(text: str, addresses: Iterable[str | None] = ()) -> str:
    """``text`` with each of ``addresses`` (plain or as ``repr``) shown redacted, each of their
    secret parts of 4 or more characters hidden wherever it appears (plain or escaped as in a
    ``repr``), and the userinfo and query values of every other ``scheme://...`` in it."""
    for address in addresses:
        if not address:
            continue
        shown, secrets = _split(address)
        if shown == address:
            continue
        text = text.replace(repr(address), repr(shown)).replace(address, shown)
        forms = {form for secret in secrets for form in (secret, repr(secret)[1:-1])}
        for form in sorted(forms, key=len, reverse=True):
            if len(form) >= 4:
                text = text.replace(form, PLACEHOLDER)
    return _URL.sub(lambda m: _split(m.group(), ports=False)[0], text)


def _split(address: str, *, ports: bool = True) -> tuple[str, list[str]]:
    """(the address redacted, its secret parts); ``ports=False`` keeps non-port text after a
    host's ``:`` (an address found in free text may be a template, ``tcp://host:port``)."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "", address
    secrets: list[str] = []
    at = rest.rfind("@")
    if at >= 0:
        userinfo = rest[:at]
        secrets += [userinfo, userinfo.partition(":")[2]]
        rest = PLACEHOLDER + rest[at:]
    else:
        authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
        host, colon, port = authority.partition(":")
        if ports and colon and port and not port.isdigit() and not authority.startswith("["):
            secrets.append(port)
            rest = f"{host}:{PLACEHOLDER}{rest[len(authority) :]}"
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=-1)
    if cut >= 0:
        tail = rest[cut:]
        secrets += [m.group()[len(m.group(1)) :] for m in _VALUE.finditer(tail)]
        rest = rest[:cut] + _VALUE.sub(lambda m: m.group(1) + PLACEHOLDER, tail)
    return scheme + sep + rest, [s for s in secrets if s]
