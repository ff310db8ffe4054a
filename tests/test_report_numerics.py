"""The report: every section, ours beside the page's, and the page's numbers kept in one place."""
import ast
import json
import pathlib

from weighttying import __main__, quoted, report

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
    assert "tol" in text and "sweep.doubling.logit" in text


REQUIRED_IDS = {
    *(f"pathdrop.wrong_rows.{s}" for s in ("both", "output_only", "input_only")),
    "pathdrop.loss.correct", "pathdrop.loss.output_only",
    *(f"repeat.init.{m}" for m in ("tied_res1", "untied", "tied_res0")), "repeat.trained.tied", "repeat.trained.untied",
    *(f"tasks.{t}.{k}" for t in ("aligned", "misaligned") for k in ("tied", "untied", "ratio")),
    "sweep.coarse_hits", "sweep.fine_hits", "sweep.doubling.resid", "sweep.doubling.logit",
    "savings.gpt2_small", "savings.large_vocab_toy", "savings.char_model",
    "paper.grad_ratio", "paper.cka_bias.scale1", "paper.lens.tuned_kl_share", "paper.lens.logit_kl_share",
}


def test_cli_json_report_has_every_section_and_is_deterministic(capsys):
    assert __main__.main(["report", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert set(first) == set(report.SECTIONS)
    rows = [r for rows in first.values() for r in rows]
    assert all({"id", "quantity", "ours", "page", "page_is", "tol", "verdict"} <= set(r) for r in rows)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) and REQUIRED_IDS <= set(ids), REQUIRED_IDS - set(ids)
    # every quoted page number is judged with its tolerance printed, and shares are fractions
    judged = {r["id"]: r for r in rows if r["id"] in quoted.QUOTES}
    assert set(judged) == set(quoted.QUOTES) and all(r["tol"] > 0 for r in judged.values())
    # every judged row says what the page's number is: one run, a mean of n runs, or exact
    assert all(r["page_is"] == quoted.basis(q) for q, r in judged.items())
    assert judged["tasks.aligned.tied"]["page_is"] == "mean of 5 runs" and judged["repeat.trained.tied"]["page_is"] == "one run"
    assert 0 < judged["savings.gpt2_small"]["ours"] < 1
    assert json.loads(report.to_json({"pathdrop": report.pathdrop_table()}))["pathdrop"] == first["pathdrop"]
