"""analysis/ is a house of rooms, each answering one question behind a small face (its
``__init__.py``), and imports go only downward: samples <- launches <- model (and collectives, at
the model's level) <- tables <- the top (result, answer, compare, refinement, advice/).
``caveats`` is a shared leaf every room may use. Outside a room (another room, the top,
present/, commands/, launch/, plain_data.py...) a module imports from the room's face, never from
a module inside it. The imports are read from the source (ast), function-level ones included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "msgperf"

# the rooms, each with the rooms and top modules it may import (besides itself and the leaves)
BELOW = {
    "samples": set(),
    "launches": {"samples"},
    "model": {"samples", "launches"},
    "collectives": {"samples", "launches", "model"},
    "tables": {"samples", "launches", "model", "collectives"},
    "advice": {"samples", "launches", "model", "collectives", "tables"},
}
TOP = {"result", "answer", "answer_sizes", "compare", "refinement"}  # may import every room's face
LEAVES = {"caveats"}  # shared by every room; imports no other analysis module
ROOMS = set(BELOW)


def place(module: str) -> tuple[str, str | None] | None:
    """Where a dotted module name lies in analysis/: (room or top module, the module inside the
    room or None for the face), or None outside analysis/."""
    parts = module.split(".")
    if parts[:2] != ["msgperf", "analysis"]:
        return None
    if len(parts) == 2:
        return "", None  # the package's own (notebook) face
    return parts[2], (parts[3] if len(parts) > 3 and parts[2] in ROOMS else None)


def module_of(path: Path, src: Path) -> str:
    rel = path.relative_to(src.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, src: Path) -> list[tuple[int, str, list[str]]]:
    """Every import of a source file: (line, absolute module, names imported from it)."""
    here = module_of(path, src)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module, [a.name for a in node.names]))
    return out


def face_names(package: Path) -> set[str]:
    """The names a package's ``__init__.py`` lists in ``__all__``."""
    init = package / "__init__.py"
    for node in ast.parse(init.read_text()).body if init.exists() else ():
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def targets(src: Path, module: str, names: list[str]) -> list[str]:
    """The modules an import loads: ``from package import name`` loads the submodule ``name``
    unless the package's face offers a name of that name."""
    package = src.parent.joinpath(*module.split("."))
    if not package.is_dir():
        return [module]
    offered = face_names(package)
    subs = [f"{module}.{n}" for n in names if n not in offered
            and ((package / f"{n}.py").exists() or (package / n / "__init__.py").exists())]
    return subs + ([module] if len(subs) < len(names) or not names else [])


def violations(src: Path) -> list[str]:
    """Each import that goes upward between rooms or reaches inside a room from outside it."""
    found = []
    for path in sorted(src.rglob("*.py")):
        where = place(module_of(path, src))
        room = where[0] if where else None  # the importing file's room, top module, "" or None
        for line, module, names in imports(path, src):
            for target in targets(src, module, names):
                if (to := place(target)) is None:
                    continue
                to_room, inner = to
                at = f"{path.relative_to(src.parent)}:{line}: {target}"
                if to_room in ROOMS and room != to_room and inner is not None:
                    found.append(f"{at} reaches inside the room {to_room!r} (import from its face)")
                elif room in LEAVES and to_room not in LEAVES:
                    found.append(f"{at}: the leaf {room!r} imports another analysis module")
                elif room in ROOMS and to_room != room and to_room not in LEAVES and to_room not in BELOW[room]:
                    found.append(f"{at}: the room {room!r} imports {to_room or 'msgperf.analysis'!r}, "
                                 "which is not below it")
    return found


def test_analysis_imports_only_downward_and_through_faces():
    assert violations(SRC) == []


def test_every_room_has_a_face_naming_what_it_offers():
    for room in sorted(ROOMS):
        face = SRC / "analysis" / room / "__init__.py"
        if room == "collectives" and not face.exists():
            continue  # the room for collective models, when they come
        tree = ast.parse(face.read_text())
        assert ast.get_docstring(tree), f"{face}: the face says which question its room answers"
        assert any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
                   for n in tree.body), f"{face}: the face lists its names in __all__"


def test_the_top_level_of_analysis_holds_only_the_top_and_the_leaves():
    flat = {p.stem for p in (SRC / "analysis").glob("*.py")} - {"__init__"}
    assert flat <= TOP | LEAVES, f"modules outside every room: {sorted(flat - TOP - LEAVES)}"


# ---- the checker itself fails on a violation (a small fake tree) --------------------------------

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "msgperf"
    for name, text in {"__init__.py": "", "analysis/__init__.py": "", "analysis/caveats.py": "",
                       "analysis/samples/__init__.py": "from msgperf.analysis.samples.stats import median\n"
                                                       "__all__ = ['median']\n",
                       "analysis/samples/stats.py": "from msgperf.analysis import caveats\nmedian = 1\n",
                       "analysis/model/__init__.py": "from .fit import fit\n__all__ = ['fit']\n",
                       "analysis/model/fit.py": "from msgperf.analysis.samples import median\nfit = 2\n",
                       "analysis/result.py": "from msgperf.analysis.model import fit\n", **files}.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    return src


def test_a_clean_fake_tree_passes(tmp_path):
    assert violations(_tree(tmp_path, {})) == []


@pytest.mark.parametrize("name, text, said", [
    ("analysis/samples/stats.py", "from msgperf.analysis.model import fit\n", "not below it"),
    ("analysis/samples/stats.py", "def f():\n    import msgperf.analysis.model\n", "not below it"),
    ("analysis/samples/stats.py", "from msgperf.analysis.result import x\n", "not below it"),
    ("analysis/model/fit.py", "from msgperf.analysis.samples.stats import median\n", "reaches inside"),
    ("analysis/model/fit.py", "from msgperf.analysis.samples import stats\n", "reaches inside"),
    ("analysis/result.py", "from msgperf.analysis.model.fit import fit\n", "reaches inside"),
    ("present/text.py", "from msgperf.analysis.model.fit import fit\n", "reaches inside"),
    ("analysis/model/fit.py", "from ...analysis.samples.stats import median\n", "reaches inside"),
    ("analysis/caveats.py", "from msgperf.analysis.samples import median\n", "the leaf"),
])
def test_the_checker_fails_on_a_violation(tmp_path, name, text, said):
    found = violations(_tree(tmp_path, {name: text}))
    assert len(found) == 1 and said in found[0], found


def test_inside_a_room_modules_import_each_other(tmp_path):
    assert violations(_tree(tmp_path, {"analysis/model/fit.py": "from msgperf.analysis.model.other import x\n"
                                                                 "from . import other\n"})) == []
