"""Labels, SQL helpers and the Table 11 colour scale shared by the StylisticBias report tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from cueshift.images.labels import AGES, BODY_TYPES, DEMOGRAPHIC_FIELDS, ETHNICITIES, GENDERS
from cueshift.render import Formatter, Pivot
from cueshift.stats import MEAN_OF_MODELS
from cueshift.study.variations import FEATURES

#: ``group`` of Table 3 rows that average a dimension's groups.
MEAN_OF_GROUPS: Final = "(mean of groups)"
AVERAGE_LABEL: Final = "Average (all models)"

DIMENSION_LABELS: Mapping[str, str] = {
    "age": "Age",
    "gender": "Gender",
    "ethnicity": "Ethnicity",
    "body_type": "Body type",
}
GROUP_ABBREVIATIONS: Mapping[str, str] = {
    "young adult": "YA",
    "middle-aged adult": "MA",
    "elderly": "EL",
    "male": "M",
    "female": "F",
    "Asian": "As",
    "African": "Af",
    "European": "Eu",
    "Middle Eastern": "ME",
    "Latino": "La",
    "thin": "Th",
    "normal": "No",
    "obese": "Ob",
}
#: Display names of the stored ``test`` and ``ci_method`` identifiers quoted in table notes.
TEST_LABELS: Mapping[str, str] = {
    "wilcoxon": "Wilcoxon signed-rank",
    "kruskal-wallis": "Kruskal–Wallis",
    "mann-whitney": "Mann–Whitney U",
    "sign-flip": "sign-flip permutation",
    "permutation": "label-permutation",
}
CI_METHOD_LABELS: Mapping[str, str] = {"bca": "BCa", "percentile": "percentile"}
# Where a note names a test or interval that `cueshift analyze --test` / `--ci` switch: filled at
# render time with what result_manifest records for the tables the note's spec reads (D66).
GROUPS: tuple[str, ...] = (*AGES, *GENDERS, *ETHNICITIES, *BODY_TYPES)
CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(f.category for f in FEATURES))

ABBREVIATIONS: Final = (
    "YA = young adult, MA = middle-aged adult, EL = elderly; M = male, F = female; As = Asian, "
    "Af = African, Eu = European, ME = Middle Eastern, La = Latino; Th = thin, No = normal, "
    "Ob = obese. Grey: variation not applicable to the group (no faces)."
)


def sql_list(values: Sequence[str]) -> str:
    """SQL list literal of ``values``."""
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


def position(column: str, values: Sequence[str]) -> str:
    """SQL: 1-based position of ``column`` in ``values`` (unknown values sort last)."""
    return f"coalesce(list_position({sql_list(values)}, {column}), 1000)"


def case(column: str, labels: Mapping[str, str]) -> str:
    """SQL: ``column`` relabelled by ``labels`` (other values unchanged)."""
    whens = " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in labels.items())
    return f"CASE {column} {whens} ELSE {column} END"


DIM_POS: Final = position("dimension", DEMOGRAPHIC_FIELDS)
MODEL_ROWS: Final = f"(list_contains($models, model_id) OR model_id = '{MEAN_OF_MODELS}')"
MODEL_LABEL: Final = f"CASE WHEN model_id = '{MEAN_OF_MODELS}' THEN '{AVERAGE_LABEL}' ELSE model_id END"
MODEL_ORDER: Final = f"model_id = '{MEAN_OF_MODELS}', model_id"


def dimension_pivot(value: str, fmt: Formatter, p: str | None = None) -> Pivot:
    """One display column per demographic dimension, in the paper's order."""
    return Pivot(on="dimension", value=value, fmt=fmt, p=p, labels=DIMENSION_LABELS, order="col_pos")


def model_dimension_sql(table: str, extra: Sequence[str] = ()) -> str:
    """The ``estimate`` (and the ``extra`` columns) of each model (listed ones and the mean of
    models) × demographic dimension of ``table``, in model order and dimension position, for
    :func:`dimension_pivot`."""
    columns = "".join(f", {c}" for c in extra)
    return f"""
    SELECT {MODEL_LABEL} AS model, dimension, {DIM_POS} AS col_pos, estimate{columns}
    FROM {table} WHERE {MODEL_ROWS}
    ORDER BY {MODEL_ORDER}, col_pos
    """


#: SQL, one row: the base faces per group of each demographic dimension, ``age 30 per group (3
#: groups)`` where the groups are balanced, else each group's count (``gender 274 male, 226 female``).
FACES_PER_GROUP_SQL: Final = f"""
WITH faces AS (
  SELECT DISTINCT f.face_id, f.age, f.gender, f.ethnicity, f.body_type
  FROM face f JOIN image m ON m.face_id = f.face_id AND m.role = 'base'
), long AS (
  UNPIVOT faces ON age, gender, ethnicity, body_type INTO NAME dimension VALUE "group"
), counts AS (
  SELECT dimension, "group", count(*) AS n FROM long GROUP BY dimension, "group"
), dims AS (
  SELECT dimension, {DIM_POS} AS pos,
         CASE WHEN min(n) = max(n) THEN min(n) || ' per group (' || count(*) || ' groups)'
              ELSE string_agg(n || ' ' || "group", ', ' ORDER BY n DESC, "group") END AS text
  FROM counts GROUP BY dimension
)
SELECT 'Base faces: ' || string_agg(replace(dimension, '_', ' ') || ' ' || text, '; ' ORDER BY pos) || '.'
FROM dims HAVING count(*) > 0
"""


#: Colour scale of Table 11 (seed 000 App. D.3): (name, fill colour). Greens favorable, reds unfavorable.
DELTA_SCALE: Mapping[str, str | None] = {
    "strong positive": "#7fc97f",
    "moderate positive": "#d4f0d4",
    "neutral": None,
    "moderate negative": "#f8d0d0",
    "strong negative": "#e57373",
}


def delta_class(value: object) -> str | None:
    """Class of Δ on the Table 11 scale; ``None`` when missing.

    Strong positive Δ ≥ +0.10, moderate positive +0.04 ≤ Δ < +0.10, neutral |Δ| < 0.04,
    moderate negative −0.10 < Δ ≤ −0.04, strong negative Δ ≤ −0.10 (bounds as the caption of
    seed 000 Table 11 states them).

    Examples
    --------
    >>> [delta_class(x) for x in (0.10, 0.04, 0.039, -0.04, -0.10)]
    ['strong positive', 'moderate positive', 'neutral', 'moderate negative', 'strong negative']
    """
    if value is None or not isinstance(value, int | float) or value != value:
        return None
    if value >= 0.10:
        return "strong positive"
    if value >= 0.04:
        return "moderate positive"
    if value > -0.04:
        return "neutral"
    if value > -0.10:
        return "moderate negative"
    return "strong negative"


def delta_fill(value: object) -> str | None:
    """Fill colour of Δ on the Table 11 scale (``None``: no fill)."""
    cls = delta_class(value)
    return None if cls is None else DELTA_SCALE[cls]
