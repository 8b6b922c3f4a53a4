"""Drawing the demo images into their cache (:mod:`cueshift.images.demo`, which exports these
names): one PNG per image, each face's ``render.json`` of renderer version, face and file facts,
a face whose files all still match it not drawn again, every file written atomically.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

from cueshift.images._demo_body import draw_body
from cueshift.images._demo_face import draw_face
from cueshift.images._demo_look import RENDERER_VERSION
from cueshift.images._demo_sample import DemoFace, DemoImage, face_images, sample_faces, size_label
from cueshift.images._files import FileFacts, atomic_write_bytes, progress_bar


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
