"""Whether a text names a host: an IP address, or a DNS name (letters, digits and hyphens in each label, and
underscores, which some hosts use), as ASCII (a name in another script is first put in its IDNA form)."""

from __future__ import annotations

import ipaddress
import re
from contextlib import suppress

_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)")


def is_host(text: str) -> bool:
    with suppress(ValueError):
        ipaddress.ip_address(text)
        return True
    return bool(text) and all(_LABEL.fullmatch(label) for label in text.removesuffix(".").split("."))
