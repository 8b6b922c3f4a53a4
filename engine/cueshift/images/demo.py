"""The embedded demo image set: deterministic synthetic faces drawn with PIL, no download.

Sizes
-----
``'small'``
    90 faces, one per demographic configuration (3 ages x 2 genders x 5 ethnicities x
    3 body types, seed 000 Table 7).
``'paper'``
    500 faces whose marginals equal the paper's base-face set exactly (seed 000 App. B.2:
    274 male / 226 female; 186 normal / 160 obese / 154 thin; 110 Asian, 109 African,
    101 European, 95 Middle Eastern, 85 Latino; 260 young / 124 middle-aged / 116 elderly):
    the 90 configurations once, plus 410 faces whose attribute columns are fixed-count
    lists shuffled with a fixed seed.
``N`` (int)
    N faces cycling through the 90 configurations.

The first 90 faces are the same in every size. Every face has a base image and one image
per value of the full variation space (55 values of seed 000 Table 8; ``facial_hair_male``
only on male faces, ``makeup_female`` / ``lip_makeup_female`` only on female faces: 50 per
male face, 51 per female face). The study's variation filter marks which are evaluated
(paper filter: 31 per male face, 32 per female face; 15,726 at paper scale).

Cache
-----
Images are drawn on demand into ``<cache_dir>/<size>/<face_id>/``: ``base.png``,
``<feature_key>--<value-slug>.png`` and ``render.json`` (renderer version, face, sha256 and
size of every file). A face whose files all still match ``render.json`` is not drawn again;
files are written through a temporary file and :func:`os.replace`, so a killed render never
leaves a truncated PNG behind.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import polars as pl

from cueshift.images._assemble import FaceRecord, ImageRecord, finish, listed_frames
from cueshift.images._demo_body import draw_body
from cueshift.images._demo_face import draw_face
from cueshift.images._demo_look import RENDERER_VERSION, Look, base_look
from cueshift.images._files import FileFacts, Location, atomic_write_bytes, progress_bar
from cueshift.images.base import ImageSet
from cueshift.images.labels import AGES, BODY_TYPES, ETHNICITIES, GENDERS, default_framing, slug
from cueshift.images.placebos import list_placebos
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import FEATURES, VariationFilter

SOURCE = "cueshift-demo"
PAPER_SAMPLE_SEED = 20_250_000  # fixed: the paper-size sample never changes
PAPER_MARGINALS: dict[str, dict[str, int]] = {
    "age": {"young adult": 260, "middle-aged adult": 124, "elderly": 116},
    "gender": {"male": 274, "female": 226},
    "ethnicity": {"Asian": 110, "African": 109, "European": 101, "Middle Eastern": 95, "Latino": 85},
    "body_type": {"thin": 154, "normal": 186, "obese": 160},
}
Configuration = tuple[str, str, str, str]  # (age, gender, ethnicity, body_type)


def configuration(index: int) -> Configuration:
    """The ``index``-th of the 90 demographic configurations (``index`` taken modulo 90).

    The order mixes all four attributes early (gender, age and ethnicity cycle with
    periods 2, 3 and 5), so a prefix of N < 90 faces is as balanced as it can be; the map
    is a bijection on 0..89 by the Chinese remainder theorem.
    """
    i = index % 90
    body = BODY_TYPES[(i // 30 + (i % 30) // 10) % 3]
    return AGES[i % 3], GENDERS[i % 2], ETHNICITIES[i % 5], body


def _paper_extras() -> list[Configuration]:
    """The 410 faces beyond the 90-configuration grid that make the paper marginals exact."""
    rng = random.Random(PAPER_SAMPLE_SEED)
    columns: list[list[str]] = []
    for counts in PAPER_MARGINALS.values():
        in_grid = 90 // len(counts)  # each level appears equally often in the grid
        column = [level for level, count in counts.items() for _ in range(count - in_grid)]
        rng.shuffle(column)
        columns.append(column)
    return [(age, gender, ethnicity, body) for age, gender, ethnicity, body in zip(*columns, strict=True)]


@dataclass(frozen=True)
class DemoFace:
    """One synthetic face."""

    face_id: str
    age: str
    gender: str
    ethnicity: str
    body_type: str

    @property
    def seed(self) -> int:
        """Per-face seed from the id and demographics (never the global RNG)."""
        key = f"{self.face_id}|{self.age}|{self.gender}|{self.ethnicity}|{self.body_type}"
        return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")

    @cached_property
    def look(self) -> Look:
        return base_look(self.seed, self.age, self.gender, self.ethnicity, self.body_type)


@dataclass(frozen=True)
class DemoImage:
    """One image of a face, drawn on demand; ``feature_key`` None for the base."""

    image_id: str
    face: DemoFace
    feature_key: str | None
    value: str | None
    framing: str
    file_name: str

    @property
    def path(self) -> str:
        return f"{self.face.face_id}/{self.file_name}"


def size_label(size: str | int) -> str:
    """Folder / image-set-name form of a size: ``'small'``, ``'paper'`` or ``'n<N>'``."""
    return size if isinstance(size, str) else f"n{size}"


def sample_faces(size: str | int) -> list[DemoFace]:
    """The faces of a demo size (see the module docstring)."""
    if size == "small":
        configs = [configuration(i) for i in range(90)]
    elif size == "paper":
        configs = [configuration(i) for i in range(90)] + _paper_extras()
    elif isinstance(size, int) and size >= 1:
        configs = [configuration(i) for i in range(size)]
    else:
        raise ValueError(f"demo size must be 'small', 'paper' or a positive int, not {size!r}")
    return [DemoFace(f"demo-{n:04d}", *config) for n, config in enumerate(configs, start=1)]


def face_images(face: DemoFace) -> list[DemoImage]:
    """The base image and one image per applicable value of the full variation space."""
    images = [DemoImage(f"{face.face_id}-base", face, None, None, "face", "base.png")]
    for feature in FEATURES:
        if feature.only_gender and feature.only_gender != face.gender:
            continue
        for value in feature.values:
            tag = f"{feature.feature_key}-{slug(value)}"
            images.append(
                DemoImage(
                    f"{face.face_id}-{tag}",
                    face,
                    feature.feature_key,
                    value,
                    default_framing(feature.feature_key),
                    f"{feature.feature_key}--{slug(value)}.png",
                )
            )
    return images


@dataclass(frozen=True)
class DemoListing:
    """What a demo size holds, before anything is drawn.

    ``image`` has every column of the image table except ``sha256``, ``width``, ``height``.
    """

    name: str
    face: pl.DataFrame
    image: pl.DataFrame


def _records(faces: list[DemoFace], root: Path) -> tuple[list[FaceRecord], list[ImageRecord]]:
    records, images = [], []
    for face in faces:
        where = Location(root / face.face_id)
        records.append(
            FaceRecord(face.face_id, SOURCE, face.age, face.gender, face.ethnicity, face.body_type, where)
        )
        base_id = f"{face.face_id}-base"
        for image in face_images(face):
            images.append(
                ImageRecord(
                    image_id=image.image_id,
                    face_id=face.face_id,
                    role="base" if image.feature_key is None else "variation",
                    path=image.path,
                    where=Location(root / image.path),
                    base_image_id=None if image.feature_key is None else base_id,
                    feature_key=image.feature_key,
                    variation_value=image.value,
                    framing=image.framing,
                )
            )
    return records, images


def list_demo(
    size: str | int = "small", variation_filter: VariationFilter | None = None, *, placebos: bool = False
) -> DemoListing:
    """List the faces and images of a demo size without drawing anything.

    Parameters
    ----------
    size
        ``'small'``, ``'paper'`` or a face count.
    variation_filter
        Fills ``evaluated`` / ``exclusion_reason``; default: the paper filter.
    placebos
        Add the two noise-floor placebos of every base (:mod:`cueshift.images.placebos`), as
        :func:`cueshift.images.load_image_set` does with ``[image_set] placebos``.

    Returns
    -------
    DemoListing
        Face frame (FaceSchema) and image frame without the file columns.
    """
    faces = sample_faces(size)
    records, images = _records(faces, Path(size_label(size)))
    variation_filter = variation_filter or VariationFilter()
    face_frame, image_frame = listed_frames(records, images, variation_filter)
    if placebos:
        image_frame = pl.concat([image_frame, list_placebos(image_frame, variation_filter)])
    return DemoListing(f"demo-{size_label(size)}", face_frame, image_frame)


def render_png(image: DemoImage) -> tuple[bytes, int, int]:
    """PNG bytes, width and height of one demo image (deterministic)."""
    look = image.face.look
    if image.framing == "body":
        picture = draw_body(look, image.value or "Casual")
    else:
        picture = draw_face(look, image.feature_key, image.value)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)  # fast; files stay ~1 kB
    return buffer.getvalue(), picture.width, picture.height


def _face_stamp(face: DemoFace) -> dict[str, str]:
    return {"renderer": RENDERER_VERSION, "face_id": face.face_id, "age": face.age, "gender": face.gender,
            "ethnicity": face.ethnicity, "body_type": face.body_type}  # fmt: skip


def _cached_facts(face_dir: Path, face: DemoFace, images: list[DemoImage]) -> dict[str, FileFacts] | None:
    """Facts of a face whose files all match its ``render.json``; None when anything differs."""
    try:
        index = json.loads((face_dir / "render.json").read_text(encoding="utf-8"))
        if index["stamp"] != _face_stamp(face):
            return None
        facts = {}
        for image in images:
            sha256, width, height = index["files"][image.file_name]
            if hashlib.sha256((face_dir / image.file_name).read_bytes()).hexdigest() != sha256:
                return None
            facts[image.image_id] = FileFacts(sha256, int(width), int(height))
        return facts
    except (OSError, ValueError, KeyError, TypeError):  # no index, or a stale / damaged one
        return None


def render_face(face_dir: Path, face: DemoFace) -> tuple[dict[str, FileFacts], int]:
    """Make sure every image of ``face`` exists in ``face_dir``; returns facts and images written."""
    images = face_images(face)
    cached = _cached_facts(face_dir, face, images)
    if cached is not None:
        return cached, 0
    face_dir.mkdir(parents=True, exist_ok=True)
    facts: dict[str, FileFacts] = {}
    written = 0
    for image in images:
        data, width, height = render_png(image)
        target = face_dir / image.file_name
        if not (target.is_file() and target.read_bytes() == data):
            atomic_write_bytes(target, data)
            written += 1
        facts[image.image_id] = FileFacts(hashlib.sha256(data).hexdigest(), width, height)
    files = {
        i.file_name: [facts[i.image_id].sha256, facts[i.image_id].width, facts[i.image_id].height]
        for i in images
    }
    index = {"stamp": _face_stamp(face), "files": files}
    atomic_write_bytes(face_dir / "render.json", json.dumps(index, indent=1).encode())
    return facts, written


def render(size: str | int, cache_dir: Path, *, progress: bool = True) -> tuple[Path, dict[str, FileFacts]]:
    """Draw the missing images of a demo size into ``cache_dir/<size>``.

    Returns
    -------
    root : Path
        The folder the image paths are relative to.
    facts : dict
        sha256 / width / height per image_id.
    """
    root = Path(cache_dir) / size_label(size)
    faces = sample_faces(size)
    facts: dict[str, FileFacts] = {}
    counts = "[cyan]{task.fields[written]} images drawn, {task.fields[cached]} faces cached"
    with progress_bar(progress, counts) as bar:
        task = (
            bar.add_task(f"Demo faces ({size_label(size)})", total=len(faces), written=0, cached=0)
            if bar
            else None
        )
        written_total, cached_faces = 0, 0
        for face in faces:
            face_facts, written = render_face(root / face.face_id, face)
            facts.update(face_facts)
            written_total += written
            cached_faces += written == 0
            if bar is not None and task is not None:
                bar.update(task, advance=1, written=written_total, cached=cached_faces)
    return root, facts


def load_demo(
    config: ImageSetConfig, variation_filter: VariationFilter, *, progress: bool = True
) -> ImageSet:
    """List, draw what is missing, and return the demo image set of ``config.size``."""
    listed = list_demo(config.size, variation_filter)
    root, facts = render(config.size, config.cache_dir, progress=progress)
    return finish(listed.name, root, listed.face, listed.image, facts)
