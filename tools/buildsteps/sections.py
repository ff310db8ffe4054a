"""The page's sections in the build: the registry checked for missing parts, each section's prose with the live
box the build writes, their prerendered figures in site/index.html's slots, and a test build's extra sections."""
from __future__ import annotations

import os
import re
import sys
from html import unescape
from pathlib import Path

from .base import ROOT, SITE, BuildError

# The box a section's live root replaces its prerender in (app.main embeds into live-<id>; site/boot.js and
# player.js find a section by it): written here for every declared section, never by hand in its prose.
LIVE_BOX = ('<div id="live-{sid}" class="wt-live" data-section="{sid}"><div class="wt-prerender">'
            '<!--prerender:{sid}--></div></div>')


def registry():
    """state.REGISTRY, the page's sections (and a test build's), after checking that every declared part exists
    and every view keeps the view contract (weighttying.views.contract): a missing or misnamed file, or a view's
    missing or wrong member, stops the build with a message naming it."""
    sys.path.insert(0, str(ROOT / "py"))
    try:
        from weighttying import state
    except ModuleNotFoundError as err:  # a module $WT_TEST_SECTIONS names (or one it imports) is not there
        raise BuildError(f"a declared section is incomplete: {err.name}.py is missing ({err}; looked up in "
                         f"{TEST_SECTIONS_DIR})") from err
    missing = state.missing_parts(ROOT)
    if missing:
        raise BuildError("a declared section is incomplete (weighttying.state.REGISTRY):\n  " + "\n  ".join(missing))
    from weighttying.views import contract

    for section in state.REGISTRY:
        try:
            contract.view(section.id)
        except contract.ViewError as err:
            raise BuildError(f"section {section.id!r} breaks the view contract: {err}") from err
        except Exception as err:  # the module itself fails to import: its own error, without our traceback
            raise BuildError(f"section {section.id!r}: its view ({section.view}) fails to load: "
                             f"{type(err).__name__}: {err}") from err
    return state.REGISTRY


def prose(section) -> str:
    """A section's prose (its declared HTML file, one <section id=ID> element) with its live box before the end and
    each <!--editor:KEY--> it holds replaced by that code control's editor host."""
    text = (ROOT / section.html).read_text().rstrip()
    if not re.match(rf'<section id="{re.escape(section.id)}"[ >]', text) or not text.endswith("</section>"):
        raise BuildError(f"{section.html} must be one <section id=\"{section.id}\" ...> element (section "
                         f"{section.id!r}), ending with </section>")
    if "<!--prerender:" in text or 'class="wt-live"' in text:
        raise BuildError(f"{section.html} types its own live box: the build writes it (LIVE_BOX); remove it")
    text = re.sub(r"<!--editor:([\w.]+)-->", lambda m: editor(section, m.group(1)), text)
    end = text.rindex("</section>")
    return f"{text[:end]}  {LIVE_BOX.format(sid=section.id)}\n{text[end:]}\n"


def editor(section, key: str) -> str:
    """The code editor's host for the section's code control KEY, as its first frame shows it (controls.editor_still)."""
    from weighttying import controls, state

    if not key.startswith(f"{section.id}.") or key not in state.BY_KEY:
        raise BuildError(f"{section.html}: <!--editor:{key}--> names no control of section {section.id!r}")
    try:
        return controls.editor_still(key)
    except ValueError as err:
        raise BuildError(f"{section.html}: {err}") from err


def prerender(page_data: dict) -> str:
    """site/index.html with every declared section's prose and live box (in state.REGISTRY order) and its
    default-state figures and tables (weighttying.prerender, computed by the child)."""
    html = (SITE / "index.html").read_text()
    if "<!--sections-->" not in html:
        raise BuildError("site/index.html lacks the <!--sections--> slot")
    declared = registry()
    html = html.replace("<!--sections-->", "".join(prose(s) for s in declared))
    sections = page_data["sections"]
    unknown = sorted(set(sections) ^ set(re.findall(r"<!--prerender:([\w-]+)-->", html)))
    if unknown:
        raise BuildError(f"the prerender and the page's sections differ on {unknown}")
    html = front_page(html, declared, sections)
    return re.sub(r"<!--prerender:([\w-]+)-->", lambda m: sections[m.group(1)], html)


def front_page(html: str, declared, sections: dict[str, str]) -> str:
    """HTML with site/index.html's front slots filled (weighttying.front): the opening figure, what the claim slot
    of each DECLARED section, as prerendered in SECTIONS, finds, under the section's title as its prose heads it,
    and the contents."""
    from weighttying import front
    from weighttying.views import contract

    for slot in ("idea", "findings", "contents"):
        if f"<!--front:{slot}-->" not in html:
            raise BuildError(f"site/index.html lacks the <!--front:{slot}--> slot")
    claims = [(s.id, title(s), front.slot_html(sections[s.id], contract.view(s.id).CLAIM)) for s in declared]
    try:
        found = front.findings(claims)
    except front.FrontError as err:
        raise BuildError(f"the page's findings: {err}") from err
    filled = {"idea": front.idea(), "findings": found, "contents": front.contents((s, t) for s, t, _ in claims)}
    return re.sub(r"<!--front:(\w+)-->", lambda m: filled[m.group(1)], html)


def title(section) -> str:
    """A section's title: its prose's <h2> as text."""
    heading = re.search(r"<h2\b[^>]*>(.*?)</h2>", (ROOT / section.html).read_text(), re.S)
    if not heading:
        raise BuildError(f"{section.html} has no <h2> heading")
    return unescape(re.sub(r"<[^>]+>", "", heading.group(1))).strip()


# A test build (--with-test-sections): sections that modules of this folder declare, after the page's
TEST_SECTIONS_DIR = ROOT / "tests" / "sections"


def with_test_sections(modules: str) -> None:
    """Make this process and its children (the prerender's child) see the sections MODULES (comma-separated, in
    TEST_SECTIONS_DIR) declare: $WT_TEST_SECTIONS names them to weighttying.state, found on sys.path / PYTHONPATH."""
    os.environ["WT_TEST_SECTIONS"] = modules
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TEST_SECTIONS_DIR), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(TEST_SECTIONS_DIR))


def test_section_files() -> list[Path]:
    """The Python files of a test build's sections (their declaring modules and the modules they declare), which
    the worker imports from our wheel's top level; [] for the real page."""
    if not os.environ.get("WT_TEST_SECTIONS"):
        return []
    from weighttying import state

    names = [*os.environ["WT_TEST_SECTIONS"].split(","), *(m for s in state.extra_sections() for m in (s.view, s.app) if m)]
    return [TEST_SECTIONS_DIR / f"{n}.py" for n in names]
