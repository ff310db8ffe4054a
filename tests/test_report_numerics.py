"""The report: every section, ours beside the page's, and the page's numbers kept in one place."""
import ast
import json
import pathlib

from weighttying import __main__, report

PKG = pathlib.Path(report.__file__).parent


def page_numbers():
    """Every non-trivial number quoted in quoted.PAGE (counts like 0, 8 or 64 are everywhere)."""
    def flat(v):
        return [x for item in v.values() for x in flat(item)] if isinstance(v, dict) else \
            [x for item in v for x in flat(item)] if isinstance(v, tuple) else [v]
    return {x for x in flat(report.PAGE) if isinstance(x, float) and x not in (1.0, 2.0, 32.5)}


def test_page_numbers_are_never_literals_outside_quoted_py():
    quoted = page_numbers()
    assert 0.237 in quoted and 1.84 in quoted
    modules = sorted(PKG.rglob("*.py"))
    # every module of the package, views/ and app/ included, or this test could not fail for them
    assert {"views", "app", "sections"} <= {p.parent.name for p in modules}
    for path in modules:
        if path.name == "quoted.py":
            continue
        literals = {n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)}
        assert not quoted & literals, path.name


def test_text_table_has_every_column_and_verdict():
    tables = {"savings": report.savings_table(), "sweep": report.sweep_table()}
    text = report.to_text(tables)
    assert "== savings ==" in text and "page says" in text and "verdict" in text
    assert all(r["verdict"].startswith(("agrees", "differs")) for rows in tables.values() for r in rows)


def test_cli_json_report_has_every_section_and_is_deterministic(capsys):
    assert __main__.main(["report", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert set(first) == set(report.SECTIONS)
    assert all({"quantity", "ours", "page", "verdict"} <= set(r) for rows in first.values() for r in rows)
    assert json.loads(report.to_json({"pathdrop": report.pathdrop_table()}))["pathdrop"] == first["pathdrop"]
