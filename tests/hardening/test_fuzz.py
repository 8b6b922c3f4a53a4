"""Property-based fuzzing of what users hand cueshift (docs/decisions.md#d10): the
manifest loader, the study-file loader and the inputs of `merge` give one clear
:class:`CueshiftError` or a valid result, never another exception and never a partial write.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cueshift.designs import load_study
from cueshift.errors import CueshiftError
from cueshift.images import load_image_set
from cueshift.store import merge_databases
from cueshift.study.checks import TEMPLATE_SLOTS, check_template
from cueshift.study.config import ImageSetConfig, Study
from cueshift.study.variations import VariationFilter
from tests.hardening.study_db import build_study_db, sha256

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
HEADER = [
    "image_id", "face_id", "path", "role", "base_image_id", "feature_key", "variation_value",
    "age", "gender", "ethnicity", "body_type",
]  # fmt: skip

#: Cell text with the characters that broke loaders: braces, markup, quotes, NUL and controls.
cells = st.one_of(
    st.sampled_from(
        ["", "b1", "b1.png", "base", "variation", "eyewear", "Sunglasses", "young adult", "../x"]
    ),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12),
    st.text(alphabet="{}[]/\\\"',\x00\n\r\t .", max_size=8),
)


@pytest.fixture(scope="module")
def image_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with two real demo images, b1.png and v1.png."""
    root = tmp_path_factory.mktemp("fuzz-images")
    db = build_study_db(root, limit=10)
    images = sorted((db.parent / "cache").rglob("demo-0001/*.png"))
    shutil.copy(next(p for p in images if "--" not in p.name), root / "b1.png")
    shutil.copy(next(p for p in images if p.name.startswith("eyewear--")), root / "v1.png")
    return root


@FUZZ
@given(
    header=st.lists(st.sampled_from([*HEADER, "extra", " image_id"]), min_size=0, max_size=13),
    rows=st.lists(st.lists(cells, min_size=0, max_size=12), max_size=4),
)
def test_the_manifest_loader(image_root: Path, header: list[str], rows: list[list[str]]) -> None:
    buffer = io.StringIO()
    csv.writer(buffer).writerows([header or HEADER, *rows])
    with tempfile.NamedTemporaryFile("w", suffix=".csv", dir=image_root, delete=False) as handle:
        handle.write(buffer.getvalue())
    path = Path(handle.name)
    try:
        config = ImageSetConfig(kind="manifest", manifest=path)
        image_set = load_image_set(config, VariationFilter(), progress=False)
        assert image_set.image.height >= 1
    except CueshiftError as exc:
        assert "\n" not in str(exc) and str(exc)
    finally:
        path.unlink()


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))  # a TOML basic string (JSON escapes are TOML escapes)


scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.booleans(),
    cells,
)
values = st.one_of(scalars, st.lists(scalars, max_size=3))
TEMPLATE_PIECES = ["{", "}", "x", " ", "!r", ":>3", *TEMPLATE_SLOTS, *(f"{{{s}}}" for s in TEMPLATE_SLOTS)]
TOP_KEYS = ["name", "description", "design", "database", "seeds", "batch_size", "bogus"]
SECTION_KEYS = {
    "image_set": ["kind", "size", "root", "manifest", "cache_dir", "placebos", "bogus"],
    "prompt": ["template", "orderings", "bogus"],
    "scenarios": ["set", "ids", "bogus"],
    "variations": ["mode", "bogus"],
}


@st.composite
def study_texts(draw: st.DrawFn) -> str:
    """A study file: the tiny demo study with some fields replaced by fuzzed values."""
    top: dict[str, Any] = {"name": "fuzz", "database": "fuzz.duckdb"}
    sections: dict[str, dict[str, Any]] = {"image_set": {"kind": "demo", "size": 2}}
    for key in draw(st.lists(st.sampled_from(TOP_KEYS), max_size=3)):
        top[key] = draw(values)
    for section in draw(st.lists(st.sampled_from(list(SECTION_KEYS)), max_size=2)):
        for key in draw(st.lists(st.sampled_from(SECTION_KEYS[section]), min_size=1, max_size=2)):
            sections.setdefault(section, {})[key] = draw(values)
    if key_value := draw(st.one_of(st.none(), values)):
        top["template_brace"] = key_value
    lines = [f"{k} = {_toml_value(v)}" for k, v in top.items()]
    for section, fields in sections.items():
        lines += [f"[{section}]", *(f"{k} = {_toml_value(v)}" for k, v in fields.items())]
    lines += ["[[models]]", f"model_id = {_toml_value(draw(st.one_of(st.just('sim'), cells)))}"]
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=st.one_of(study_texts(), st.text(max_size=200)))
def test_the_study_file_loader(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        study = load_study(str(path))
    except CueshiftError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
    else:
        assert isinstance(study, Study)
        check_template(study.prompt.template)  # a loaded study's template always renders
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fuzz.toml"]  # loading writes nothing


@FUZZ
@given(
    template=st.lists(st.sampled_from(TEMPLATE_PIECES), max_size=10).map("".join),
)
def test_a_template_that_passes_always_renders(template: str) -> None:
    try:
        check_template(template)
    except ValueError:
        return
    text = template.format(**{slot: slot.upper() for slot in TEMPLATE_SLOTS})
    assert all(slot.upper() in text for slot in TEMPLATE_SLOTS)


@pytest.fixture(scope="module")
def shard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_study_db(tmp_path_factory.mktemp("fuzz-shard"), limit=200)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cut=st.one_of(st.none(), st.integers(min_value=0, max_value=5_000_000)),
    flips=st.lists(st.tuples(st.integers(min_value=0, max_value=5_000_000), st.integers(1, 255)), max_size=4),
)
def test_merge_inputs(
    shard: Path, tmp_path_factory: pytest.TempPathFactory, cut: int | None, flips: list[tuple[int, int]]
) -> None:
    """A shard with bytes flipped or cut off: merged whole, or refused with the output left absent."""
    tmp = tmp_path_factory.mktemp("fuzz-merge")
    data = bytearray(shard.read_bytes())
    for offset, mask in flips:
        data[offset % len(data)] ^= mask
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    damaged = tmp / "damaged.duckdb"
    damaged.write_bytes(bytes(data))
    before = sha256(damaged)
    output = tmp / "out.duckdb"
    try:
        added = merge_databases(output, [damaged])
    except CueshiftError as exc:
        assert "\n" not in str(exc)
        assert not output.exists() and not output.with_name("out.duckdb.wal").exists()
    else:
        assert output.exists() and set(added) >= {"judgment", "image"}
    assert sha256(damaged) == before


#: DuckDB's file layout: three 4 KiB headers, then 256 KiB blocks, each starting with its checksum.
_HEADERS, _BLOCK = 3 * 4096, 256 * 1024


def test_merge_of_an_input_with_a_damaged_block_is_one_line(shard: Path, tmp_path: Path) -> None:
    """Found by :func:`test_merge_inputs` in CI: a data block whose stored checksum no longer
    matches (a flipped bit) is found only when the rows are read, and raised DuckDB's own error
    mid-merge. Every block's checksum is damaged in turn: one line naming the input, nothing written."""
    data = shard.read_bytes()
    refused = 0
    for offset in range(_HEADERS, len(data), _BLOCK):
        damaged = bytearray(data)
        damaged[offset] ^= 1
        path = tmp_path / f"damaged-{offset}.duckdb"
        path.write_bytes(bytes(damaged))
        output = tmp_path / f"out-{offset}.duckdb"
        try:
            merge_databases(output, [path])
        except CueshiftError as exc:
            refused += 1
            assert "\n" not in str(exc) and str(path) in str(exc), exc
            assert not output.exists() and not output.with_name(output.name + ".wal").exists()
    assert refused >= 1  # some block holds rows the merge reads
