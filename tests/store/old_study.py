"""Study databases of older schema versions, built from ``sql/schema.sql`` as it was (fixtures taken
with ``git show``), with a few rows in every table a run writes and one result table."""

from __future__ import annotations

from pathlib import Path

import duckdb

FIXTURES = Path(__file__).parent / "fixtures"
#: The forced-choice scenario of the rows (seed 000's first).
SCENARIO = ("competent", "Competent", "Incompetent", "Personality & Social")
#: Raw answer -> (outcome as stored, the reason this cueshift's parser gives an invalid one).
ANSWERS: dict[str, tuple[str, str | None]] = {
    "(a)": ("favorable", None),
    "I cannot tell from a photo.": ("invalid", "refusal"),
    "Maybe (b).": ("invalid", "hedge"),
    "(a) or (b)": ("invalid", "both"),
    "": ("invalid", "empty"),
    "Yes": ("invalid", "no_answer"),
    "not (a)": ("invalid", "negated"),
}
#: An answer stored as invalid that this parser reads as valid: its reason cannot be derived.
STALE = "(b)"


def build_old_study(path: Path, version: int) -> None:
    """A database of schema ``version`` (2, 3 or 4) at ``path``: 1 person (table ``identity``) with 2
    images, judgments over 4 orderings, (version 4) one ``image_identity`` row, and a
    ``result_manifest`` with the columns of its day."""
    con = duckdb.connect(str(path))
    try:
        con.execute((FIXTURES / f"schema_v{version}.sql").read_text(encoding="utf-8"))
        con.execute("INSERT INTO identity VALUES ('f1', 'demo', 'elderly', 'female', NULL, NULL, '{}')")
        con.execute(
            "INSERT INTO image VALUES "
            "('f1_base', 'f1', 'base', NULL, NULL, NULL, NULL, 'face', 'f1.png', 'aa', 64, 64, true, NULL), "
            "('f1_v', 'f1', 'variation', 'f1_base', 'Eyewear', 'eyewear', 'Glasses', 'face', 'f1_v.png', "
            "'bb', 64, 64, true, NULL)"
        )
        con.execute("INSERT INTO scenario VALUES (?, 'sb25', 1, ?, ?, ?, NULL)", list(SCENARIO))
        con.execute("INSERT INTO model VALUES ('sim', 'simulated', 'sim', NULL, '{}')")
        con.execute(
            "INSERT INTO run (run_id, study_name, shard, config, versions, started_at, finished_at, "
            "n_planned, n_written) VALUES ('r1', 'old', '1/1', '{\"name\": \"old\"}', '{}', "
            "TIMESTAMP '2026-01-02 03:04:05', NULL, 64, NULL)"
        )
        texts = [*ANSWERS, STALE]
        rows = []
        for i, text in enumerate(texts):
            outcome = "invalid" if text == STALE else ANSWERS[text][0]
            for image_id in ("f1_base", "f1_v"):
                for ordering in (1, 2, 3, 4):
                    letter = "a" if outcome == "favorable" and ordering <= 2 else None
                    rows.append((image_id, ordering, i, text, outcome, letter, 0.25 * ordering, 10.0 + i))
        columns = "model_id, image_id, scenario_id, ordering, seed, response_text, outcome, chosen_letter, "
        columns += "p_favorable, latency_ms, created_at, run_id"
        con.executemany(
            f"INSERT INTO judgment ({columns}) VALUES ('sim', ?, 'competent', ?, ?, ?, ?, ?, ?, ?, "
            "TIMESTAMP '2026-01-02 03:04:05', 'r1')",
            rows,
        )
        if version >= 3:  # a v3 runner recorded reasons: a stored one is kept even where it differs
            con.execute(
                "UPDATE judgment SET invalid_reason = 'conflict' WHERE response_text = 'Yes' AND seed = 5"
            )
        if version >= 4:
            con.execute(
                "INSERT INTO image_identity VALUES ('enc', 'f1_v', 'f1_base', 'eyewear', 0.9, NULL, false)"
            )
        con.execute("CREATE TABLE result_manifest AS SELECT 'sbs' AS analysis, 42 AS seed")
    finally:
        con.close()


def judgment_rows(path: Path) -> list[tuple[object, ...]]:
    """Every judgment with the columns every version has, in key order (read-only)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(
            "SELECT model_id, image_id, scenario_id, ordering, seed, response_text, outcome, chosen_letter, "
            "p_favorable, p_neither, latency_ms, created_at, run_id FROM judgment ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
