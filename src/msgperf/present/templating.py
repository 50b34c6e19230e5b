"""The Jinja2 environment of the report's and the charts' templates (``present/templates/``):
autoescape on every template, and every value written shown as text (``printable``: a control
character as \\xNN, not obeyed)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from msgperf.data_text import printable

TEMPLATES = Path(__file__).with_name("templates")


@lru_cache(maxsize=1)
def environment() -> Any:
    import jinja2  # noqa: PLC0415 - only the report and the charts need it
    from markupsafe import Markup  # noqa: PLC0415

    def shown(value: Any) -> Any:
        return printable(value, None) if isinstance(value, str) and not isinstance(value, Markup) else value

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, finalize=shown,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined,
                             auto_reload=False)
    env.globals["newline"] = Markup("\n")
    return env


def render(template: str, **values: Any) -> Any:
    """A template rendered, as markup (safe to place in another template)."""
    from markupsafe import Markup  # noqa: PLC0415

    return Markup(environment().get_template(template).render(**values))
