"""Names a package imports on first use (PEP 562), so that importing the package stays cheap: a
command imports only what it uses (``msgperf --help`` needs neither numpy nor the records)."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping


def lazy_names(package: str, where: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The package's ``__getattr__``: ``where`` maps a name to the module that defines it; the
    value, once imported, is kept in the package's ``namespace`` (its globals)."""

    def __getattr__(name: str) -> Any:
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
