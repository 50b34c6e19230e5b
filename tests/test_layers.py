"""msgperf's packages import only downward: the base (errors, values, units, the cache's place,
data strings) <- the package's face (its version) <- writing and the plan <- records <- store <-
analysis <- reading (plain_data <- the analysis cache <- the loader) <- the notebook api, launch and
present (none imports another) <- commands <- the command line. A module may use its own package
and anything in a layer below its own. Imports are read from the source (ast), function-level ones
included; an import under ``if TYPE_CHECKING:`` is a type hint, not a use, and does not count.
(Inside analysis/ the rooms have their own rule: tests/analysis/test_rooms.py.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "msgperf"

# Bottom first. A name is a package (a folder) or a module directly under msgperf/; "" is the
# package's face (msgperf/__init__.py: ``__version__``).
LAYERS: list[set[str]] = [
    {"errors", "lazy", "values", "units", "cache_dir", "data_text"},
    {""},
    {"writing", "plan"},
    {"records"},
    {"store"},
    {"analysis"},
    {"plain_data"},
    {"analysis_cache"},
    {"loader"},
    {"api", "launch", "present"},
    {"commands"},
    {"cli"},
    {"__main__"},
]
# Modules any layer may use, whatever the package above them: the limits on values read from a
# file are the plan's limits too.
LEAVES = {"records.limits"}
LAYER_OF = {name: n for n, names in enumerate(LAYERS) for name in names}


def unit_of(module: str) -> str | None:
    """The package or top module of msgperf a dotted module name lies in ("" for the package
    itself), a leaf's own name, or None outside msgperf."""
    parts = module.split(".")
    if parts[0] != "msgperf":
        return None
    if ".".join(parts[1:3]) in LEAVES:
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 and parts[1] in LAYER_OF else ""  # else a name on the face


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    hidden = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING":
            hidden |= {id(n) for child in node.body for n in ast.walk(child)}
    return hidden


def lazy_map(src: Path, package: str) -> dict[str, str]:
    """The names a package's face imports on first use (``lazy_names(package, MAP, ...)``: name ->
    module), read from its ``__init__.py``; {} for none."""
    init = src.parent.joinpath(*package.split("."), "__init__.py")
    if not init.exists():
        return {}
    tree = ast.parse(init.read_text())
    maps = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Name) and isinstance(n.value, ast.Dict)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "lazy_names" and len(node.args) > 1 \
                and getattr(node.args[1], "id", "") in maps:
            return ast.literal_eval(maps[node.args[1].id])
    return {}


def imports(path: Path, src: Path) -> list[tuple[int, str]]:
    """Every import of a source file that counts: (line, absolute module); ``from msgperf import
    x`` is read as the module ``msgperf.x``, and a name a package's face imports on first use
    (``lazy_map``) as the module it comes from."""
    rel = path.relative_to(src.parent).with_suffix("")
    here = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    hidden = _type_checking_only(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            lazy = lazy_map(src, module) if module.startswith("msgperf") else {}
            for a in node.names:
                if a.name in lazy:
                    out.append((node.lineno, lazy[a.name]))
                elif module == "msgperf":
                    out.append((node.lineno, f"msgperf.{a.name}"))
                else:
                    out.append((node.lineno, module))
    return out


def violations(src: Path) -> list[str]:
    """Each import of a unit in the same layer or above (its own package excepted), and each
    unit that no layer names."""
    found = []
    for path in sorted(src.rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        inside = [p for p in parts if p != "__init__"]
        if inside and inside[0] not in LAYER_OF:
            found.append(f"{path.relative_to(src.parent)}: {inside[0]!r} is in no layer (tests/test_layers.py)")
            continue
        here = unit_of(".".join(["msgperf", *inside]))
        for line, module in imports(path, src):
            to = unit_of(module)
            if to is None or to == here or to in LEAVES:
                continue
            if here in LEAVES and LAYER_OF.get(to, len(LAYERS)) > 0:  # a leaf stands on the base alone
                found.append(f"{path.relative_to(src.parent)}:{line}: the leaf {here!r} imports {module}")
            elif here not in LEAVES and (to not in LAYER_OF or LAYER_OF[to] >= LAYER_OF[here]):
                found.append(f"{path.relative_to(src.parent)}:{line}: {here or 'msgperf'!r} imports {module}, "
                             "which is not below it")
    return found


def test_msgperf_imports_only_downward():
    assert violations(SRC) == []


# ---- the checker itself fails on a violation (a small fake tree) --------------------------------

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "msgperf"
    for name, text in {"__init__.py": "from msgperf.errors import E\nfrom msgperf.lazy import lazy_names\n"
                                      "__version__ = 1\n_LAZY = {'Run': 'msgperf.records.format'}\n"
                                      "__getattr__ = lazy_names('msgperf', _LAZY, globals())\n",
                       "errors.py": "E = 1\n", "lazy.py": "",
                       "records/__init__.py": "", "records/limits.py": "L = 1\n",
                       "records/format.py": "from msgperf.errors import E\nfrom .limits import L\n",
                       "plan.py": "from msgperf.records.limits import L\nfrom typing import TYPE_CHECKING\n"
                                  "if TYPE_CHECKING:\n    from msgperf.records.format import F\n",
                       "analysis/__init__.py": "", "analysis/result.py": "from msgperf.records import format\n",
                       "present/__init__.py": "", "present/text.py": "from msgperf.analysis.result import r\n",
                       "launch/__init__.py": "", "launch/job.py": "import msgperf.plan\nfrom msgperf import __version__\n",
                       **files}.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    return src


def test_a_clean_fake_tree_passes(tmp_path):
    assert violations(_tree(tmp_path, {})) == []


@pytest.mark.parametrize("name, text, said", [
    ("records/format.py", "from msgperf.analysis.result import r\n", "'records' imports msgperf.analysis.result"),
    ("records/format.py", "def f():\n    from msgperf import store\n", "'records' imports msgperf.store"),
    ("launch/job.py", "from msgperf.present.text import t\n", "'launch' imports msgperf.present.text"),
    ("present/text.py", "from ..launch import job\n", "'present' imports msgperf.launch"),
    ("plan.py", "from msgperf.records.format import F\n", "'plan' imports msgperf.records.format"),
    ("errors.py", "import msgperf.writing\n", "'errors' imports msgperf.writing"),
    ("errors.py", "from msgperf import __version__\n", "'errors' imports msgperf.__version__"),
    ("present/text.py", "from msgperf.api import x\n", "'present' imports msgperf.api"),
    ("records/limits.py", "from msgperf.records.format import F\n", "the leaf 'records.limits'"),
    ("newthing.py", "", "in no layer"),
    ("records/limits.py", "from msgperf.analysis.result import r\n", "the leaf 'records.limits'"),
    ("plan.py", "from msgperf import Run\n", "'plan' imports msgperf.records.format"),  # the face's lazy name
])
def test_the_checker_fails_on_a_violation(tmp_path, name, text, said):
    found = violations(_tree(tmp_path, {name: text}))
    assert len(found) == 1 and said in found[0], found
