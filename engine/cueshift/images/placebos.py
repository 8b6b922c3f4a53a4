"""Noise-floor placebos: two variations of every base image whose pixels are the base's
(docs/decisions.md#d1).

Per base image the study includes

``Identical copy``
    the base file itself under a new image id (``<base>--placebo-identical-copy``): the same
    bytes, so a byte- or prefix-keyed cache of a server sees the same request;
``Lossless re-encode``
    the base's decoded pixels written as PNG (``<base>--placebo-lossless-re-encode``) into
    ``<root>/.cueshift-placebos/<base path>--lossless.png``: other bytes, the same pixels
    (PNG sources at another zlib level, JPEG/WebP sources as PNG of their decoded pixels).

Both have ``feature_key`` and ``variation_category`` ``placebo``; every variation filter keeps
them (:meth:`cueshift.study.variations.VariationFilter.exclusion_reason`). Their true Δ is zero,
so their Δ measure sampling noise, serving nondeterminism and cache effects: the noise floor.
Re-encodes are written only after every input check passed, atomically, and reused while
``index.json`` says they were made from the same base bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pandera.errors
import polars as pl
from PIL import Image

from cueshift.errors import ImageSetError
from cueshift.images._files import FileFacts, atomic_write_bytes, progress_bar
from cueshift.images.base import ImageSet
from cueshift.schemas import ImageSchema
from cueshift.study.variations import (
    IDENTICAL_COPY,
    LOSSLESS_REENCODE,
    PLACEBO_FEATURE_KEY,
    PLACEBO_VALUES,
    VariationFilter,
)

#: Folder under the image-set root that holds the lossless re-encodes and their index.
PLACEBO_FOLDER = ".cueshift-placebos"
#: Image modes PNG stores as they are (other modes are converted to RGB first).
_PNG_MODES = frozenset({"1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"})

__all__ = ["PLACEBO_FOLDER", "lossless_reencode", "placebo_image_id", "list_placebos", "with_placebos"]


def placebo_image_id(base_image_id: str, value: str) -> str:
    """``<base>--placebo-identical-copy`` / ``<base>--placebo-lossless-re-encode``."""
    return f"{base_image_id}--placebo-{value.lower().replace(' ', '-')}"


def reencode_path(base_path: str) -> str:
    """Where the lossless re-encode of the base at ``base_path`` lies, relative to the root."""
    return f"{PLACEBO_FOLDER}/{base_path}--lossless.png"


def list_placebos(bases: pl.DataFrame, variation_filter: VariationFilter) -> pl.DataFrame:
    """The placebo rows of the image table for the base rows of ``bases`` (its columns, minus any
    file column: ``sha256``, ``width`` and ``height`` are filled by :func:`with_placebos`)."""
    rows = bases.filter(pl.col("role") == "base")
    parts = []
    for value in PLACEBO_VALUES:
        reason = variation_filter.exclusion_reason(PLACEBO_FEATURE_KEY, value, None)
        suffix = placebo_image_id("", value)
        path = (
            pl.col("path")
            if value == IDENTICAL_COPY
            else pl.concat_str(pl.lit(f"{PLACEBO_FOLDER}/"), pl.col("path"), pl.lit("--lossless.png"))
        )
        parts.append(
            rows.with_columns(
                pl.concat_str(pl.col("image_id"), pl.lit(suffix)).alias("image_id"),
                pl.lit("variation").alias("role"),
                pl.col("image_id").alias("base_image_id"),
                pl.lit(PLACEBO_FEATURE_KEY).alias("variation_category"),
                pl.lit(PLACEBO_FEATURE_KEY).alias("feature_key"),
                pl.lit(value).alias("variation_value"),
                path.alias("path"),
                pl.lit(reason is None).alias("evaluated"),
                pl.lit(reason, dtype=pl.String).alias("exclusion_reason"),
            )
        )
    return pl.concat(parts)


def lossless_reencode(data: bytes) -> bytes:
    """PNG bytes of the pixels of the image ``data``, different from ``data`` itself.

    The decoded pixels are kept exactly when their mode is one PNG stores (every PNG, RGB and
    greyscale JPEG/WebP); CMYK or YCbCr sources are converted to RGB. The ICC profile, EXIF
    (orientation) and a palette's transparency travel with the pixels. zlib levels 1, 9 and 0 are
    tried in turn until the bytes differ from the source (a PNG written at level 1 gets level 9).
    """
    with Image.open(io.BytesIO(data)) as source:
        source.load()
        picture = source if source.mode in _PNG_MODES else source.convert("RGB")
        extra = {k: source.info[k] for k in ("icc_profile", "exif", "transparency") if source.info.get(k)}
    out = data
    for level in (1, 9, 0):
        buffer = io.BytesIO()
        picture.save(buffer, format="PNG", compress_level=level, **extra)
        out = buffer.getvalue()
        if out != data:
            break
    return out


def _read_index(folder: Path) -> dict[str, dict[str, object]]:
    try:
        index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        return index if isinstance(index, dict) else {}
    except (OSError, ValueError):
        return {}


def _cached(root: Path, relative: str, entry: object, source_sha256: str) -> FileFacts | None:
    """The facts of a re-encode whose file and index entry still match its base; None otherwise."""
    if not isinstance(entry, dict) or entry.get("source_sha256") != source_sha256:
        return None
    try:
        data = (root / relative).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        return None
    return FileFacts(str(entry["sha256"]), int(entry["width"]), int(entry["height"]))


def write_reencodes(root: Path, bases: pl.DataFrame, *, progress: bool) -> dict[str, FileFacts]:
    """Make sure the lossless re-encode of every base exists under ``root``; facts by base image id."""
    folder = root / PLACEBO_FOLDER
    index = _read_index(folder)
    facts: dict[str, FileFacts] = {}
    changed = False
    rows = bases.select("image_id", "path", "sha256").rows()
    with progress_bar(progress and len(rows) > 200) as bar:
        task = bar.add_task("Placebo re-encodes", total=len(rows)) if bar else None
        for image_id, path, sha256 in rows:
            relative = reencode_path(path)
            found = _cached(root, relative, index.get(relative), sha256)
            if found is None:
                try:
                    data = lossless_reencode((root / path).read_bytes())
                    target = root / relative
                    target.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write_bytes(target, data)
                except OSError as exc:
                    raise ImageSetError(
                        f"{root / relative}: cannot write the lossless re-encode placebo "
                        f"({exc.strerror or exc}); set [image_set] placebos = false to add none"
                    ) from None
                with Image.open(io.BytesIO(data)) as img:
                    found = FileFacts(hashlib.sha256(data).hexdigest(), img.width, img.height)
                index[relative] = {"source_sha256": sha256, "sha256": found.sha256,
                                   "width": found.width, "height": found.height}  # fmt: skip
                changed = True
            facts[image_id] = found
            if bar is not None and task is not None:
                bar.advance(task)
    if changed:
        atomic_write_bytes(folder / "index.json", json.dumps(index, indent=1, sort_keys=True).encode())
    return facts


def with_placebos(
    image_set: ImageSet, variation_filter: VariationFilter, *, progress: bool = True
) -> ImageSet:
    """``image_set`` with the two placebos of every base image added to its image table.

    Raises
    ------
    ImageSetError
        A placebo image id already names an image of the set, or a re-encode cannot be written.
    """
    bases = image_set.image.filter(pl.col("role") == "base")
    listed = list_placebos(bases.drop("sha256", "width", "height"), variation_filter)
    clash = listed.join(image_set.image.select("image_id"), on="image_id", how="semi")
    if clash.height:
        raise ImageSetError(
            f"{image_set.name}: field 'image_id': {clash['image_id'][0]!r} is taken; it names a noise-floor "
            "placebo (set [image_set] placebos = false or rename the image)"
        )
    reencoded = write_reencodes(image_set.root, bases, progress=progress)
    files = bases.select("image_id", "sha256", "width", "height").rename({"image_id": "base_image_id"})
    copies = listed.filter(pl.col("variation_value") == IDENTICAL_COPY).join(files, on="base_image_id")
    ids = list(reencoded)
    reencode_files = pl.DataFrame(
        {
            "base_image_id": ids,
            "sha256": [reencoded[i].sha256 for i in ids],
            "width": [reencoded[i].width for i in ids],
            "height": [reencoded[i].height for i in ids],
        },
        schema=files.schema,
    )
    reencodes = listed.filter(pl.col("variation_value") == LOSSLESS_REENCODE).join(
        reencode_files, on="base_image_id"
    )
    image = pl.concat([image_set.image, *(p.select(image_set.image.columns) for p in (copies, reencodes))])
    try:
        ImageSchema.validate(image)
    except (pandera.errors.SchemaError, pandera.errors.SchemaErrors) as exc:
        raise ImageSetError(f"{image_set.name}: the placebo rows break the table contract: {exc}") from None
    return ImageSet(image_set.name, image_set.root, image_set.face, image, image_set.croissant)
