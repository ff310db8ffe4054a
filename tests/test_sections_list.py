"""One list of sections: the ids and their order are state.State's section fields (state.SECTIONS), and
every other list derives from it: the embed choices, the app's live sections, the build's prerender,
playback tables and results, and the tests' parameter lists. A hand-typed list of ids fails here."""
import ast
import dataclasses
import re
from pathlib import Path

from weighttying import prebuilt, prerender
from weighttying import state
from weighttying.app import sections
from weighttying.views import kit

ROOT = Path(__file__).resolve().parents[1]
SCANNED = [ROOT / "build.py", *(p for d in ("py", "bench", "tests") for p in sorted((ROOT / d).rglob("*.py")))]


def hand_lists(tree: ast.AST) -> list[int]:
    """Lines of literals that list section ids by hand: a tuple, list or set holding two ids or more and no other
    text but "", or a dict from ids to the modules of the same name. A dict holding per-section data (a query,
    a preset, a table's function) is not a list of ids."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            ids = [t for t in texts if t in state.SECTIONS]
            if len(ids) >= 2 and all(t in state.SECTIONS or t == "" for t in texts):
                out.append(node.lineno)
        elif isinstance(node, ast.Dict):
            pairs = [(k.value, v.id) for k, v in zip(node.keys, node.values)
                     if isinstance(k, ast.Constant) and isinstance(v, ast.Name)]
            if len(pairs) >= 2 and len(pairs) == len(node.keys) and all(k == v in state.SECTIONS for k, v in pairs):
                out.append(node.lineno)
    return out


def test_no_hand_typed_list_of_section_ids():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in SCANNED if ".venv" not in path.parts
             for line in hand_lists(ast.parse(path.read_text()))]
    assert not found, f"derive these from state.SECTIONS (or prebuilt.RUN_SECTIONS): {found}"


def test_the_scan_finds_what_it_should():
    assert hand_lists(ast.parse('x = ("", "tying", "paper")\ny = ["model", "tying", "paper"]')) == [1]
    assert hand_lists(ast.parse('import tying, paper\nV = {"tying": tying, "paper": paper}')) == [2]
    assert hand_lists(ast.parse('Q = {"tying": "tying.V=3", "paper": "paper.scale=4"}\nt = ("tying",)')) == []


def test_every_list_of_sections_is_the_registrys_in_its_order():
    assert state.SECTIONS == tuple(s.id for s in state.REGISTRY) == tuple(f.name for f in dataclasses.fields(state.State) if f.name != "page")
    assert all(dataclasses.fields(state.State)[i].type is s.state for i, s in enumerate(state.REGISTRY))
    assert state.BY_KEY["embed"].choices == ("", *state.SECTIONS)
    assert sections.SECTIONS == state.SECTIONS
    assert all(prerender.view(sid).module == state.SECTION[sid].view for sid in state.SECTIONS)
    assert prebuilt.RUN_SECTIONS == tuple(s for s in state.SECTIONS if prerender.view(s).results is not kit.no_results)
    assert "gradcheck" in prebuilt.RUN_SECTIONS and "sweep" not in prebuilt.RUN_SECTIONS


def test_every_declared_part_exists_and_a_missing_one_is_named(monkeypatch):
    assert state.missing_parts(ROOT) == []
    wrong = state.Section("tying", state.Tying, "weighttying.views.tyingg", "weighttying.app.sections.nothere", "site/sections/x.html")
    monkeypatch.setattr(state.sections, "REGISTRY", (*state.REGISTRY, wrong))  # the module missing_parts reads
    assert state.missing_parts(ROOT) == [
        "section 'tying': its view module weighttying.views.tyingg is missing (weighttying/views/tyingg.py, looked up on sys.path)",
        "section 'tying': its app module weighttying.app.sections.nothere is missing "
        "(weighttying/app/sections/nothere.py, looked up on sys.path)",
        "section 'tying': its prose site/sections/x.html is missing"]


def test_no_module_or_prose_is_found_by_its_name_alone():
    """Whether a section exists is the registry's word: nothing looks for a file named after a section id."""
    for path in (ROOT / "build.py", *sorted((ROOT / "py").rglob("*.py"))):
        assert "find_spec(f" not in path.read_text() and '.html").exists()' not in path.read_text(), path


# Where another section stands: true of one order (state.SECTIONS'), and of nothing in an embed, which shows one.
BY_POSITION = re.compile(r"\b(?:next|previous|following|preceding) sections?\b|\bsections? (?:above|below)\b"
                         r"|\beverything (?:above|below)\b", re.IGNORECASE)


def test_a_sections_prose_names_another_section_by_its_title_not_its_place():
    assert BY_POSITION.findall("The next section breaks it; the sections below test it; everything above")
    found = {s.id: BY_POSITION.findall(" ".join((ROOT / s.html).read_text().split())) for s in state.REGISTRY}
    assert not {sid: words for sid, words in found.items() if words}, found
