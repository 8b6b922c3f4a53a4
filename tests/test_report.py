"""The report: declared tables, formatters, the qmd → notebook → pandoc/typst renderer, errors.

A small simulated study is written with :func:`cueshift.store.write_tables` (planted cue
effects, a few invalid answers); when the statistics engine is importable its result
tables are computed with ``run_analyses``. The report is rendered without Quarto, in both
formats, and every number checked is looked up in the database by the test itself.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.errors import CueshiftError
from cueshift.study.scenarios import (
    ORDERING_BY_ID,
    ORDERINGS,
    RELEASED_TEMPLATE,
    STYLISTICBIAS_25,
    prompt_variant_frame,
    scenario_frame,
)
from cueshift.study.variations import FEATURES, VariationFilter

AGES = ("young adult", "middle-aged adult", "elderly")
GENDERS = ("male", "female")
ETHNICITIES = ("Asian", "African", "European", "Middle Eastern", "Latino")
BODY_TYPES = ("thin", "normal", "obese")
NOW = dt.datetime(2026, 1, 1, 12, 0, 0)

# planted effects (logit scale) of a few cues, and the scenario category they act on most
_CUE_EFFECT = {
    "Worn / Distressed clothing": -1.2,
    "Professional / Business formal": 0.9,
    "Smart casual": 0.8,
    "Messy": -0.5,
    "Full beard": 0.5,
    "Red lipstick": 0.5,
    "Acne": -0.4,
    "Thick-rimmed": 0.35,
}
_CATEGORY_GAIN = {
    "Socioeconomic & Appearance": 1.6,
    "Behavioral": 0.8,
    "Personality & Social": 0.6,
    "Interpersonal": 0.3,
}


def build_study_db(
    path: Path,
    *,
    n_faces: int = 18,
    models: Sequence[str] = ("sim-a", "sim-b"),
    scenarios_per_category: int | None = 2,
    n_seeds: int = 2,
    seed: int = 0,
) -> Path:
    """Write a small simulated study database (all rows through ``store.write_tables``)."""
    rng = np.random.default_rng(seed)
    configs = [(a, g, e, b) for a in AGES for g in GENDERS for e in ETHNICITIES for b in BODY_TYPES]
    # every group of every dimension is represented: cycle each dimension independently
    faces = [
        (AGES[i % 3], GENDERS[(i // 3) % 2], ETHNICITIES[i % 5], BODY_TYPES[(i // 2) % 3])
        for i in range(n_faces)
    ]
    assert all(f in configs for f in faces)
    identity = pl.DataFrame(
        {
            "identity_id": [f"f{i:03d}" for i in range(n_faces)],
            "source": ["simulated"] * n_faces,
            "age": [f[0] for f in faces],
            "gender": [f[1] for f in faces],
            "ethnicity": [f[2] for f in faces],
            "body_type": [f[3] for f in faces],
            "attributes": pl.Series([None] * n_faces, dtype=pl.String),
        }
    )
    filt = VariationFilter()
    rows: list[dict[str, object]] = []
    for i, (_, gender, _, _) in enumerate(faces):
        face = f"f{i:03d}"
        rows.append(
            dict(
                image_id=f"{face}-base",
                identity_id=face,
                role="base",
                base_image_id=None,
                variation_category=None,
                feature_key=None,
                variation_value=None,
                framing="face",
                evaluated=True,
                exclusion_reason=None,
            )
        )
        for feature in FEATURES:
            if feature.only_gender and feature.only_gender != gender:
                continue
            for k, value in enumerate(feature.values):
                reason = filt.exclusion_reason(feature.feature_key, value, gender)
                rows.append(
                    dict(
                        image_id=f"{face}-{feature.feature_key}-{k}",
                        identity_id=face,
                        role="variation",
                        base_image_id=f"{face}-base",
                        variation_category=feature.category,
                        feature_key=feature.feature_key,
                        variation_value=value,
                        framing=feature.framing,
                        evaluated=reason is None,
                        exclusion_reason=reason,
                    )
                )
    image = (
        pl.DataFrame(
            rows,
            schema={
                "image_id": pl.String,
                "identity_id": pl.String,
                "role": pl.String,
                "base_image_id": pl.String,
                "variation_category": pl.String,
                "feature_key": pl.String,
                "variation_value": pl.String,
                "framing": pl.String,
                "evaluated": pl.Boolean,
                "exclusion_reason": pl.String,
            },
        )
        .with_columns(
            path=pl.col("image_id") + ".png",
            sha256=pl.lit("0" * 64),
            width=pl.lit(64, dtype=pl.Int32),
            height=pl.lit(64, dtype=pl.Int32),
        )
        .select(
            "image_id",
            "identity_id",
            "role",
            "base_image_id",
            "variation_category",
            "feature_key",
            "variation_value",
            "framing",
            "path",
            "sha256",
            "width",
            "height",
            "evaluated",
            "exclusion_reason",
        )
    )
    chosen = list(STYLISTICBIAS_25)
    if scenarios_per_category:
        chosen = [
            s
            for cat in _CATEGORY_GAIN
            for s in [x for x in STYLISTICBIAS_25 if x.category == cat][:scenarios_per_category]
        ]
    scenario = scenario_frame(tuple(chosen), "stylisticbias-25")
    model = pl.DataFrame(
        {
            "model_id": list(models),
            "backend": ["simulated"] * len(models),
            "checkpoint": ["cueshift-simulated-v1"] * len(models),
            "revision": pl.Series([None] * len(models), dtype=pl.String),
            "settings": [json.dumps({"seed": 7 + k, "scale": 1.0 + 0.5 * k}) for k in range(len(models))],
        }
    )
    run = pl.DataFrame(
        {
            "run_id": ["run-1"],
            "study_name": ["report-test"],
            "shard": ["1/1"],
            "config": ["{}"],
            "versions": ["{}"],
            "started_at": [NOW],
            "finished_at": [NOW],
            "n_planned": [0],
            "n_written": [0],
        }
    ).with_columns(pl.col("n_planned").cast(pl.Int64), pl.col("n_written").cast(pl.Int64))

    judged = image.filter(pl.col("evaluated")).join(identity, on="identity_id")
    age_shift = {"young adult": -0.3, "middle-aged adult": 0.0, "elderly": 0.3}
    body_shift = {"thin": 0.1, "normal": 0.2, "obese": -0.4}
    frames = []
    for m, model_id in enumerate(models):
        scale = 1.0 + 0.5 * m
        for s in chosen:
            gain = _CATEGORY_GAIN[s.category]
            cue = (
                judged["variation_value"]
                .replace_strict(_CUE_EFFECT, default=0.0, return_dtype=pl.Float64)
                .fill_null(0.0)
                .to_numpy()
            )
            demo = (
                judged["age"].replace_strict(age_shift).to_numpy()
                + judged["body_type"].replace_strict(body_shift).to_numpy()
            )
            face_noise = np.array(
                [zlib.crc32(f"{f}/{s.scenario_id}".encode()) % 97 / 97 - 0.5 for f in judged["identity_id"]]
            )
            logit = 0.2 + scale * gain * cue + demo + 0.6 * face_noise
            for ordering in ORDERINGS:
                for sd in range(1, n_seeds + 1):
                    p_fav = 1 / (1 + np.exp(-(logit + (0.15 if ordering.favorable_first else -0.15))))
                    u = rng.random(len(judged))
                    invalid = rng.random(len(judged)) < (
                        0.08 if s.category == "Behavioral" and m == 1 else 0.01
                    )
                    outcome = np.where(invalid, "invalid", np.where(u < p_fav, "favorable", "unfavorable"))
                    fav_letter = ORDERING_BY_ID[ordering.ordering].favorable_letter
                    other = "b" if fav_letter == "a" else "a"
                    by_outcome = {"favorable": fav_letter, "unfavorable": other, "invalid": None}
                    letter = [by_outcome[str(o)] for o in outcome]
                    frames.append(
                        pl.DataFrame(
                            {
                                "model_id": model_id,
                                "image_id": judged["image_id"],
                                "scenario_id": s.scenario_id,
                                "ordering": pl.Series([ordering.ordering] * len(judged), dtype=pl.Int32),
                                "seed": pl.Series([sd] * len(judged), dtype=pl.Int32),
                                "response_text": [f"({x})" if x else "I cannot tell." for x in letter],
                                "outcome": outcome.tolist(),
                                "chosen_letter": pl.Series(letter, dtype=pl.String),
                                "p_favorable": pl.Series([None] * len(judged), dtype=pl.Float64),
                                "p_neither": pl.Series([None] * len(judged), dtype=pl.Float64),
                                "latency_ms": [1.0] * len(judged),
                                "created_at": pl.Series([NOW] * len(judged), dtype=pl.Datetime("us")),
                                "run_id": ["run-1"] * len(judged),
                            }
                        )
                    )
    judgment = pl.concat(frames)
    con = store.open_study(path)
    try:
        store.write_tables(
            con,
            {
                "identity": identity,
                "image": image,
                "scenario": scenario,
                "prompt_variant": prompt_variant_frame(RELEASED_TEMPLATE, ORDERINGS),
                "model": model,
                "run": run,
                "judgment": judgment,
            },
        )
    finally:
        con.close()
    return path


# ------------------------------------------------------------------------------------ formatters

from cueshift.designs.stylisticbias.report import CATALOG, delta_class, delta_fill  # noqa: E402
from cueshift.report import (  # noqa: E402
    MISSING,
    NOT_APPLICABLE_FILL,
    Col,
    Notation,
    Pivot,
    TableSpec,
    effect,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_percent,
    fmt_pvalue,
    fmt_pvalue_sci,
    marks,
    significance_mark,
    stars,
    stub,
    to_html,
    to_markdown,
    to_rich,
    to_typst,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (fmt_number(0.07512), "0.075"),
        (fmt_number(-0.0004), "0.000"),
        (fmt_number(None), MISSING),
        (fmt_number(float("nan")), MISSING),
        (fmt_effect(0.0461), "+0.046"),
        (fmt_effect(-0.0234), "−0.023"),
        (fmt_effect(0.0), "+0.000"),
        (fmt_effect(0.02736, 4), "+0.0274"),
        (fmt_pvalue(0.0321), "0.032"),
        (fmt_pvalue(0.0009), "< 0.001"),
        (fmt_pvalue(1.0), "1.000"),
        (fmt_pvalue_sci(2.31e-11), "2.3×10⁻¹¹"),
        (fmt_ci(-0.0121, 0.0339), "[−0.012, +0.034]"),
        (fmt_ci(None, 0.1), MISSING),
        (fmt_percent(0.7648), "76%"),
        (fmt_percent(0.01234, 2), "1.23%"),
        (fmt_integer(15726), "15,726"),
    ],
)
def test_formatters(value: str, expected: str) -> None:
    assert value == expected


def test_significance_notation_and_delta_scale() -> None:
    # seed 000 §4.4: bold p < 0.001, underline p >= 0.05, plain in between
    assert [significance_mark(p).value for p in (0.0009, 0.001, 0.049, 0.05)] == [  # type: ignore[union-attr]
        "strong",
        "significant",
        "significant",
        "ns",
    ]
    assert significance_mark(None) is None
    # Table 11 bounds, inclusive as the caption states them
    assert [delta_class(x) for x in (0.10, 0.0999, 0.04, 0.0399, -0.0399, -0.04, -0.0999, -0.10)] == [
        "strong positive",
        "moderate positive",
        "moderate positive",
        "neutral",
        "neutral",
        "moderate negative",
        "moderate negative",
        "strong negative",
    ]
    assert delta_fill(0.0) is None and delta_fill(0.2) != delta_fill(-0.2)


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (0.0, "***"),
        (0.000999, "***"),
        (0.001, "**"),
        (0.00999, "**"),
        (0.01, "*"),
        (0.0499, "*"),
        (0.05, ""),
        (0.07, ""),
        (1.0, ""),
        (None, ""),
        (float("nan"), ""),
    ],
)
def test_star_notation_thresholds(p: float | None, expected: str) -> None:
    # seed 001 App. D-F "standard star notation", seed 004 Fig. 7: strict thresholds
    assert stars(p) == expected
    assert marks(p, Notation.STARS).suffix == (f" {expected}" if expected else "")
    assert not marks(p, Notation.STARS).bold and not marks(p, Notation.STARS).underline


def test_marks_emphasis_and_trend_code() -> None:
    assert marks(0.0009).bold and not marks(0.0009).underline
    assert not marks(0.001).bold and not marks(0.001).underline
    assert marks(0.05).underline and not marks(0.05).bold
    assert marks(None) == marks(float("nan")) == marks(None, Notation.STARS)
    assert [stars(p, trend=True) for p in (0.05, 0.0999, 0.1)] == [".", ".", ""]
    with pytest.raises(TypeError, match="p-value"):
        stars("0.01")


def test_star_marks_follow_the_p_column_and_skip_missing_values() -> None:
    frame = pl.DataFrame(
        {"name": ["a", "b", "c", "d"], "h": [12.5, 3.2, None, 0.4], "p": [2e-4, 0.004, 0.01, 0.3]}
    )
    spec = TableSpec(
        "kw", "KW", "", (stub("name", "Name"), Col("h", "H", fmt_number, p="p", notation=Notation.STARS))
    )
    table = spec.build(frame)
    assert table.texts() == [["a", "12.500 ***"], ["b", "3.200 **"], ["c", MISSING], ["d", "0.400"]]
    assert not any(cell.bold or cell.underline for row in table.rows for cell in row)
    typ = to_typst(table)
    assert "12.500 ***" in to_html(table) and '"12.500 ***"' in typ and 'strong("12.500' not in typ
    assert "12.500 \\*\\*\\*" in to_markdown(table)


# ------------------------------------------------------------------------------- declared tables


def _long_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "category": ["Skin", "Skin", "Fashion", "Fashion", "Fashion"],
            "value": ["Acne", "Acne", "Casual", "Casual", "Casual"],
            "dimension": ["Age", "Gender", "Age", "Gender", "Gender"],
            "grp": ["YA", "M", "YA", "M", "F"],
            "delta": [-0.065, 0.01, 0.12, 0.05, -0.2],
            "p_adj": [1e-5, 0.3, 0.01, 0.0001, 0.02],
        }
    )


def test_pivot_table_layout_marks_and_outputs() -> None:
    spec = TableSpec(
        "t11",
        "Δ per variation",
        "",
        (stub("category", "Category"), stub("value", "Variation")),
        pivot=Pivot(
            "grp",
            "delta",
            effect(),
            p="p_adj",
            fill=delta_fill,
            spanner="dimension",
            missing_fill=NOT_APPLICABLE_FILL,
        ),
    )
    table = spec.build(_long_frame())
    assert table.labels == ("Category", "Variation", "YA", "M", "F")
    assert table.spanners == (("Age", 2, 2), ("Gender", 3, 4))
    assert table.texts() == [
        ["Skin", "Acne", "−0.065", "+0.010", MISSING],
        ["Fashion", "Casual", "+0.120", "+0.050", "−0.200"],
    ]
    acne_ya, acne_m, acne_f = table.rows[0][2:]
    assert acne_ya.bold and not acne_ya.underline and acne_ya.fill == delta_fill(-0.065)
    assert acne_m.underline and not acne_m.bold
    assert acne_f.fill == NOT_APPLICABLE_FILL
    html = to_html(table)
    assert "−0.065" in html and "font-weight: bold" in html and "text-decoration: underline" in html
    assert NOT_APPLICABLE_FILL.lower() in html.lower()
    typ = to_typst(table)
    assert (
        'strong("−0.065")' in typ and 'underline("+0.010")' in typ and f'rgb("{NOT_APPLICABLE_FILL}")' in typ
    )
    assert "colspan: 2" in typ  # the Gender spanner
    md = to_markdown(table)
    assert "**−0.065**" in md and "[+0.010]{.underline}" in md
    assert to_rich(table).row_count == 2


def test_plain_table_from_duckdb_with_model_parameter() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute(
        "CREATE TABLE r AS SELECT * FROM (VALUES ('m1', 0.5, 0.2), ('m2', 0.25, 0.0001)) t(model_id, x, p)"
    )
    spec = TableSpec(
        "r",
        "R",
        "SELECT * FROM r WHERE list_contains($models, model_id) ORDER BY model_id",
        (stub("model_id", "Model"), Col("x", "X", fmt_number, p="p")),
    )
    table = spec.render(con, {"models": ["m2"], "unused": 1})
    assert table.texts() == [["m2", "0.250"]] and table.rows[0][1].bold
    with pytest.raises(CueshiftError, match="lacks column"):
        TableSpec("bad", "B", "SELECT 1 AS a", (Col("b", "B"),)).render(con)
    with pytest.raises(CueshiftError, match="report table bad"):
        TableSpec("bad", "B", "SELECT * FROM nowhere", (Col("b", "B"),)).render(con)


# ------------------------------------------------------------------------------- qmd → notebook

from cueshift.report._qmd import parse_qmd, to_notebook  # noqa: E402


def test_parse_qmd_chunks_options_and_parameter_injection(tmp_path: Path) -> None:
    doc = tmp_path / "d.qmd"
    doc.write_text(
        "---\ntitle: T\nformat:\n  typst:\n    toc: true\n---\n\n# Head\n\nText.\n\n"
        "```{python}\n#| tags: [parameters]\ndb = 'x'\n```\n\n"
        '```{python}\n#| label: fig-a\n#| fig-cap: "A cap"\nprint(db)\n```\n\nEnd.\n',
        encoding="utf-8",
    )
    parsed = parse_qmd(doc)
    assert parsed.header["title"] == "T"
    kinds = [c.kind for c in parsed.chunks]
    assert kinds == ["markdown", "code", "code", "markdown"]
    assert parsed.chunks[2].options == {"label": "fig-a", "fig-cap": "A cap"}
    assert parsed.chunks[2].source == "print(db)"
    nb = to_notebook(parsed, {"db": "/data/s.duckdb", "models": "a,b"})
    sources = [c.source for c in nb.cells]
    injected = sources.index("# injected parameters\ndb = '/data/s.duckdb'\nmodels = 'a,b'")
    assert sources[injected - 1] == "db = 'x'"  # right after the parameters cell


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\ntitle: [unclosed\n---\n", "YAML header"),
        ("```{python}\nx = 1\n", "not closed"),
        ("The value is `{python} x`.\n", "inline"),
    ],
)
def test_parse_qmd_errors(tmp_path: Path, text: str, message: str) -> None:
    doc = tmp_path / "bad.qmd"
    doc.write_text(text, encoding="utf-8")
    with pytest.raises(CueshiftError, match=message):
        parse_qmd(doc)


# ------------------------------------------------------------------------------ study databases

from cueshift.report import FALLBACK, Catalog, Report, render_report  # noqa: E402
from cueshift.stats import run_analyses  # noqa: E402

DOCUMENT = CATALOG.document_path


@pytest.fixture(scope="module")
def raw_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated study with judgments only (no ``result_*`` tables)."""
    return build_study_db(tmp_path_factory.mktemp("raw") / "study.duckdb", n_faces=24)


@pytest.fixture(scope="module")
def analysed_db(raw_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same study with the statistics engine's result tables."""
    path = tmp_path_factory.mktemp("analysed") / "study.duckdb"
    path.write_bytes(raw_db.read_bytes())
    con = store.open_study(path)
    try:
        run_analyses(con, n_resamples=100, seed=1, progress=False)
    finally:
        con.close()
    return path


@pytest.fixture(scope="module")
def rendered(analysed_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("out")
    result = render_report(analysed_db, document=DOCUMENT, out_dir=out, engine="jupyter")
    assert result.engine == FALLBACK
    assert result.models == ("sim-a", "sim-b")
    return dict(result.outputs)


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CueshiftError, match="no such study database"):
        render_report(tmp_path / "nope.duckdb", document=DOCUMENT, out_dir=tmp_path / "out")
    assert not (tmp_path / "out" / "study.html").exists()


def test_empty_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    store.open_study(path).close()
    with pytest.raises(CueshiftError, match="holds no judgments") as info:
        render_report(path, document=DOCUMENT, out_dir=tmp_path / "out")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "out").exists()


def test_not_a_database_and_unknown_model(tmp_path: Path, raw_db: Path) -> None:
    junk = tmp_path / "junk.duckdb"
    junk.write_text("not a database", encoding="utf-8")
    with pytest.raises(CueshiftError, match="cannot open"):
        render_report(junk, document=DOCUMENT, out_dir=tmp_path / "out")
    with pytest.raises(CueshiftError, match="unknown model"):
        render_report(raw_db, document=DOCUMENT, models="sim-a,gpt-9", out_dir=tmp_path / "out")


def test_model_subset_filters_per_model_rows(analysed_db: Path) -> None:
    with Report.open(analysed_db, "sim-b", CATALOG) as report:
        assert report.subset and report.models == ["sim-b"]
        assert [row[0] for row in report.styled("judgments").texts()] == ["sim-b"]
        vs_rows = [row[0] for row in report.styled("table2_vs").texts()]
        assert vs_rows == ["sim-b", "Average (all models)"]
        assert "subset" in report.preamble().text


def test_console_tables(analysed_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cueshift.report.cli import print_tables

    print_tables(analysed_db, CATALOG)
    out = capsys.readouterr().out
    for spec in CATALOG.tables:
        assert spec.title.split(" (")[0][:40] in " ".join(out.split())


# ------------------------------------------------------------------------------ rendered output

from tests.html_tables import html_tables, texts  # noqa: E402


@pytest.fixture(scope="module")
def html(rendered: dict[str, Path]) -> str:
    return rendered["html"].read_text(encoding="utf-8")


def test_html_is_self_contained_with_figures(html: str) -> None:
    assert html.count('src="data:image/png;base64,') == 4
    assert not re.search(r'src="(?!data:)', html)
    assert "Not computed" not in html


def test_html_data_quality_tables_match_the_database(html: str, analysed_db: Path) -> None:
    import duckdb

    con = duckdb.connect(str(analysed_db), read_only=True)
    try:
        judgments = con.sql("SELECT model_id, outcome, scenario_id FROM judgment").pl()
        n_planned = con.sql("""SELECT (SELECT count(*) FROM image WHERE role = 'base' OR evaluated)
                                      * (SELECT count(*) FROM scenario) * 4 * 2""").fetchall()[0][0]
        scenarios = con.sql(
            "SELECT scenario_id, favorable || ' / ' || unfavorable AS label FROM scenario"
        ).pl()
    finally:
        con.close()
    tables = html_tables(html)
    per_model = (
        judgments.group_by("model_id")
        .agg(n=pl.len(), invalid=(pl.col("outcome") == "invalid").sum())
        .sort("model_id")
    )
    expected = [
        [
            r["model_id"],
            fmt_integer(r["n"]),
            fmt_percent(r["n"] / n_planned, 1),
            fmt_integer(r["invalid"]),
            fmt_percent(r["invalid"] / r["n"], 2),
            fmt_integer(n_planned // 8),
            "0",
        ]
        for r in per_model.iter_rows(named=True)
    ]
    assert texts(tables["judgments"]) == expected
    rates = (
        judgments.group_by("scenario_id", "model_id")
        .agg(rate=(pl.col("outcome") == "invalid").mean())
        .join(scenarios, on="scenario_id")
    )
    shown = {row[0]: row[1:] for row in texts(tables["invalid_by_scenario"])}
    for row in rates.iter_rows(named=True):
        column = ["sim-a", "sim-b"].index(row["model_id"])
        assert shown[row["label"]][column] == fmt_percent(row["rate"], 1)
    benchmark = dict(texts(tables["benchmark"]))
    assert benchmark["Judgments"] == fmt_integer(judgments.height)
    assert benchmark["Faces (identities with a base image)"] == "24"


def test_html_result_tables_match_the_database(html: str, analysed_db: Path) -> None:
    import duckdb

    con = duckdb.connect(str(analysed_db), read_only=True)
    try:
        vs = con.sql("SELECT * FROM result_table2_vs").pl()
        t5 = con.sql("SELECT * FROM result_table5").pl()
        t11 = con.sql("SELECT * FROM result_table11").pl()
        asym = con.sql("SELECT * FROM result_negativity_asymmetry").pl()
    finally:
        con.close()
    tables = html_tables(html)
    # Table 2: every VS value, model rows then the average row
    dims = ["age", "gender", "ethnicity", "body_type"]
    expected_vs = []
    for model_id, label in (
        ("sim-a", "sim-a"),
        ("sim-b", "sim-b"),
        ("(mean of models)", "Average (all models)"),
    ):
        row = vs.filter(pl.col("model_id") == model_id)
        expected_vs.append(
            [label] + [fmt_number(row.filter(pl.col("dimension") == d)["estimate"].item()) for d in dims]
        )
    assert texts(tables["table2_vs"]) == expected_vs
    # Table 5: SBS with 4 decimals and its interval
    shown5 = {r[0]: r for r in texts(tables["table5_models"])}
    for row in t5.iter_rows(named=True):
        label = "Average (all models)" if row["model_id"] == "(mean of models)" else row["model_id"]
        assert shown5[label][1] == fmt_effect(row["estimate"], 4)
        assert shown5[label][2] == fmt_ci(row["ci_low"], row["ci_high"], 4)
    # Table 11: every cell's text, significance mark and colour
    groups = list(AGES + GENDERS + ETHNICITIES + BODY_TYPES)
    cells = {
        (r[0][0], groups[j]): r[j + 1] for r in tables["table11_demographic"] for j in range(len(groups))
    }
    assert len(tables["table11_demographic"]) == t11["variation_value"].n_unique()
    for row in t11.iter_rows(named=True):
        text, style = cells[(row["variation_value"], row["group"])]
        assert text == fmt_effect(row["estimate"])
        mark = significance_mark(row["p_adj"])
        assert ("font-weight: bold" in style) == (mark is not None and mark.value == "strong")
        assert ("underline" in style) == (mark is not None and mark.value == "ns")
        fill = delta_fill(row["estimate"])
        assert (fill is None and "background" not in style) or (fill is not None and fill in style)
    # negativity asymmetry: ratios with their marks
    shown_asym = texts(tables["negativity_asymmetry"])
    assert {r[4] for r in shown_asym} == {f"{fmt_number(x, 2)}×" for x in asym["estimate"]}


def test_pdf_pages_and_section_titles(rendered: dict[str, Path]) -> None:
    from pypdf import PdfReader

    reader = PdfReader(str(rendered["pdf"]))
    assert len(reader.pages) >= 5
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    for title in (
        "Study summary",
        "Data quality",
        "RQ1",
        "RQ2",
        "RQ3",
        "Provenance",
        "Variation Strength (VS) per model",
        "Mean prediction shift",
        "Per-model variation effects",
    ):
        assert title in text, title
    assert re.findall(r"Figure (\d)\.", text) == ["2", "3", "4", "5"]
    assert "Table 11. Mean prediction shift" in text
    assert "Not computed" not in text


def test_missing_result_tables_render_a_note(raw_db: Path, tmp_path: Path) -> None:
    result = render_report(raw_db, document=DOCUMENT, out_dir=tmp_path, formats=["html"], engine="jupyter")
    page = result.outputs["html"].read_text(encoding="utf-8")
    tables = html_tables(page)
    assert {"benchmark", "judgments", "invalid_by_scenario"} <= set(tables)
    assert "table2_vs" not in tables
    for name in ("result_table2_vs", "result_table11", "result_sbs", "result_cross_model"):
        assert name in page, name
    assert page.count("Not computed") >= 10
    assert "cueshift analyze" in page


# ---------------------------------------------------------------------------------- quarto path


def test_quarto_on_path_is_used(raw_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in ``quarto`` records its arguments and writes the output file it is asked for."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.txt"
    script = bin_dir / "quarto"
    script.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$@" >> "{log}"\n'
        'out=""; to=""\n'
        'while [ $# -gt 0 ]; do case "$1" in\n'
        '  --output-dir) out="$2"; shift;; --to) to="$2"; shift;;\n'
        "esac; shift; done\n"
        'ext=html; [ "$to" = typst ] && ext=pdf\n'
        'echo fake > "$out/study.$ext"\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    result = render_report(raw_db, document=DOCUMENT, out_dir=tmp_path / "out", models="sim-a")
    assert result.engine == "quarto"
    assert set(result.outputs) == {"html", "pdf"}
    calls = log.read_text(encoding="utf-8").splitlines()
    assert len(calls) == 2 and "--to html" in calls[0] and "--to typst" in calls[1]
    assert f"-P db:{raw_db.resolve()}" in calls[0] and "-P models:sim-a" in calls[0]
    assert str(DOCUMENT) in calls[0]


def test_report_command_errors_and_engine_choice(tmp_path: Path) -> None:
    from cueshift.report.cli import report_command_for

    asked: list[str] = []

    def target(study: str) -> tuple[Catalog, Path]:
        asked.append(study)
        return CATALOG, tmp_path / "default.duckdb"

    report_command = report_command_for(target)
    with pytest.raises(CueshiftError, match="no such study database"):
        report_command(db=tmp_path / "missing.duckdb", out=tmp_path)
    with pytest.raises(CueshiftError, match="default.duckdb: no such study database"):
        report_command(study="mine.toml", out=tmp_path)
    with pytest.raises(CueshiftError, match="--engine"):
        report_command(db=tmp_path / "missing.duckdb", engine="latex")
    with pytest.raises(CueshiftError, match="--format 'docx'"):
        report_command(db=tmp_path / "missing.duckdb", formats="html,docx")
    assert asked == ["default", "mine.toml", "default", "default"]


def test_bad_arguments_write_nothing(raw_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(CueshiftError, match="--format"):
        render_report(raw_db, document=DOCUMENT, out_dir=out, formats=["docx"])
    with pytest.raises(CueshiftError, match="--engine"):
        render_report(raw_db, document=DOCUMENT, out_dir=out, engine="latex")
    with pytest.raises(CueshiftError, match="no such report document"):
        render_report(raw_db, out_dir=out, document=tmp_path / "missing.qmd")
    assert not out.exists()
