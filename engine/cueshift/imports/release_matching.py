"""Release judgment files matched to a study: their images, scenarios, orderings and seeds.

Every check here names the first file that fails it (relative to the judgements folder) and the
field; the matching is done on the distinct values (a few hundred option pairs, not millions of
rows) and joined back. The matched rows are shaped into table rows by :mod:`.release_rows`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from cueshift.designs.forced_choice import JUDGMENT_KEY
from cueshift.errors import CueshiftError
from cueshift.inference.backends.base import ImageRecord
from cueshift.study.scenarios import ORDERINGS, Scenario


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _fail_first(rows: pl.DataFrame, folder: Path, field: str, message: str) -> None:
    """Raise naming the first (in path order) of ``rows``, if any; ``message`` may use its columns."""
    if rows.height:
        row = rows.sort("file").row(0, named=True)
        more = f" (+{rows.height - 1} more files)" if rows.height > 1 else ""
        raise CueshiftError(f"{folder / row['file']}: field '{field}': {message.format(**row)}{more}")


def _scenario_of_options(files: pl.DataFrame, scenarios: Sequence[Scenario], folder: Path) -> pl.DataFrame:
    """``option_a, option_b -> scenario_id, favorable_letter`` for every distinct option pair."""
    poles: dict[str, set[tuple[str, str]]] = {}
    for scenario in scenarios:
        poles.setdefault(_fold(scenario.favorable), set()).add((scenario.scenario_id, "favorable"))
        poles.setdefault(_fold(scenario.unfavorable), set()).add((scenario.scenario_id, "unfavorable"))
    pairs = files.select("option_a", "option_b").unique()
    found: list[tuple[str, str, str | None, str | None]] = []
    for a, b in pairs.iter_rows():
        matches = {
            (sa, "a" if pole_a == "favorable" else "b")
            for sa, pole_a in poles.get(_fold(a), set())
            for sb, pole_b in poles.get(_fold(b), set())
            if sa == sb and pole_a != pole_b
        }
        scenario_id, letter = next(iter(matches)) if len(matches) == 1 else (None, None)
        found.append((a, b, scenario_id, letter))
    schema = {"option_a": pl.String, "option_b": pl.String, "scenario_id": pl.String, "fav_letter": pl.String}
    mapping = pl.DataFrame(found, schema=schema, orient="row")
    joined = files.join(mapping, on=["option_a", "option_b"], how="left")
    _fail_first(
        joined.filter(pl.col("scenario_id").is_null()), folder, "options",
        "{option_a!r} / {option_b!r} are not the two descriptors of one scenario of the study",
    )  # fmt: skip
    return joined


def _check_mapping(frame: pl.DataFrame, source: str, target: str, folder: Path, field: str) -> None:
    """Each value of ``source`` always goes with one value of ``target``, and the other way round;
    the files that break it are those off the most common pairing."""
    for a, b in ((source, target), (target, source)):
        usual = (
            frame.group_by(a, b)
            .len()
            .sort([a, "len", b], descending=[False, True, False])
            .group_by(a, maintain_order=True)
            .first()
            .select(a, pl.col(b).alias("__usual"))
        )
        bad = frame.join(usual, on=a).filter(pl.col(b) != pl.col("__usual"))
        _fail_first(
            bad, folder, field,
            f"{a} {{{a}}} goes with {b} {{{b}}} here but with {b} {{__usual}} in most files",
        )  # fmt: skip


def match_study(
    files: pl.DataFrame,
    images: Mapping[str, ImageRecord],
    scenarios: Sequence[Scenario],
    scenario_positions: Mapping[str, int],
    orderings: Sequence[int],
    folder: Path,
) -> pl.DataFrame:
    """Map release files to the study's images, scenarios and orderings (checks in the module
    docstring of :mod:`cueshift.imports.judgments`).

    Returns
    -------
    pl.DataFrame
        ``file, model_id, image_id, scenario_id, ordering, seed, chosen_option, raw_output,
        timestamp, option_a, option_b, answer_start, answer_end`` (the answer's span in ``raw_output``).
    """
    known = pl.DataFrame(
        {"img": list(images), "face_id": [record.face_id for record in images.values()]},
        schema={"img": pl.String, "face_id": pl.String},
    )
    rows = files.join(known, on="img", how="left")
    _fail_first(
        rows.filter(pl.col("face_id").is_null()), folder, "face_image_name",
        "image {img!r} is not in the study's image set",
    )  # fmt: skip
    _fail_first(
        rows.filter(pl.col("face_id") != pl.col("face")), folder, "face",
        "image {img!r} belongs to face {face_id!r} in the image set, not to folder {face!r}",
    )  # fmt: skip
    rows = _scenario_of_options(rows, scenarios, folder)
    _fail_first(
        rows.filter(pl.col("first_letter").is_null()), folder, "prompt",
        "names neither option's letter nor descriptor, so the prompt ordering is unknown",
    )  # fmt: skip
    by_letters = {(o.favorable_letter, o.favorable_first): o.ordering for o in ORDERINGS}
    ordering_of = pl.DataFrame(
        [(fav, first, by_letters[(fav, first == fav)]) for fav in "ab" for first in "ab"],
        schema={"fav_letter": pl.String, "first_letter": pl.String, "ordering": pl.Int32},
        orient="row",
    )
    rows = rows.join(ordering_of, on=["fav_letter", "first_letter"], how="left")
    _fail_first(
        rows.filter(~pl.col("ordering").is_in(list(orderings))), folder, "order",
        f"the prompt is ordering {{ordering}} (seed 000 App. C.2), not one of the study's {list(orderings)}",
    )  # fmt: skip
    _check_mapping(rows, "order", "ordering", folder, "order")
    positions = pl.DataFrame(
        {"scenario_id": list(scenario_positions), "__position": list(scenario_positions.values())},
        schema={"scenario_id": pl.String, "__position": pl.Int64},
    )
    rows = rows.join(positions, on="scenario_id").with_columns(
        (pl.col("scenario_index") - pl.col("__position")).alias("__offset")
    )
    offset = rows.sort("file")["__offset"][0]
    _fail_first(
        rows.filter(pl.col("__offset") != offset), folder, "file name",
        f"scenario{{scenario_index}} holds scenario {{scenario_id!r}}, but other files number the "
        f"scenarios from {offset}",
    )  # fmt: skip
    rows = rows.rename({"model": "model_id", "img": "image_id"})
    duplicated = rows.filter(pl.struct(JUDGMENT_KEY).is_duplicated())
    _fail_first(
        duplicated, folder, "file name",
        "a second file for model {model_id!r}, image {image_id!r}, scenario {scenario_id!r}, "
        "ordering {ordering}, seed {seed}",
    )  # fmt: skip
    return rows.select(
        "file", "model_id", "image_id", "scenario_id", "ordering", "seed", "chosen_option", "raw_output",
        "timestamp", "option_a", "option_b", "answer_start", "answer_end",
    )  # fmt: skip
