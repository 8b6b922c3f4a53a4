"""Paper-scale benchmark of `cueshift view`: the server time of every page (target < 1 s each).

The study is the one of ``bench_analysis.py`` (6 models × 500 faces × ~31 evaluated variations ×
25 scenarios × 4 orderings × 3 seeds ≈ 29 M judgments, 16 k images), built here when ``--db``
does not exist yet (then analysed with 200 resamples: the viewer reads the result tables, not
how precise they are). The viewer is started as ``cueshift view`` starts it (uvicorn on
localhost); each page is requested once to warm up, then ``--repeats`` times, and the wall time
of each HTTP request on the loopback is recorded (an upper bound of the server time). The
simulated study has no image files, so image requests serve the placeholder; a thumbnail of a
real 1024 × 1024 PNG is timed separately, made once and then read from the disk cache.

Usage::

    .venv/bin/python benchmarks/bench_view.py [--db /tmp/paper.duckdb] [--out BENCHMARKS.md]

With ``--out`` the section between the ``bench_view`` markers of that file is replaced
(created if absent); other sections are kept.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import repo_root  # noqa: F401  (the repository root on sys.path: tests.simulate)
import uvicorn
from bench_markdown import replace_section
from PIL import Image

from cueshift import store
from cueshift.viewer import create_app
from cueshift.viewer.thumbs import thumbnail

MODELS = ("gemma-3", "gemma-4", "internvl3", "llava-v1.6", "pixtral", "qwen3")
START, END = "<!-- bench_view:start -->", "<!-- bench_view:end -->"


def build(db: Path, faces: int) -> None:
    """Simulate the paper-scale study into ``db`` and analyse it (as ``bench_analysis.py`` does)."""
    from cueshift.designs.stylisticbias.analyses import run_analyses
    from cueshift.stats import Resampling
    from tests.simulate.outputs import write_study
    from tests.simulate.study import SimulationSpec, simulate_study

    study = simulate_study(SimulationSpec(n_faces=faces, models=MODELS, seed=2026))
    con = store.open_study(db)
    try:
        write_study(con, study)
        del study
        run_analyses(con, Resampling(resamples=200, seed=0), progress=False)
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _pages(db: Path) -> dict[str, str]:
    """The URLs to time, with ids picked from the study (the largest |SBS| attribute, a face, an image)."""
    con = store.open_study(db, read_only=True)
    try:
        (value,) = con.execute(
            "SELECT variation_value FROM result_sbs WHERE level = 'variation_value' "
            "AND model_id = '(pooled)' AND dimension IS NULL ORDER BY abs_sbs DESC LIMIT 1"
        ).fetchall()[0]
        image_id, face, scenario = con.execute(
            "SELECT image_id, face_id, (SELECT min(scenario_id) FROM scenario) FROM image "
            "WHERE role = 'variation' ORDER BY image_id LIMIT 1 OFFSET 8000"
        ).fetchall()[0]
        (category,) = con.execute("SELECT min(category) FROM scenario").fetchall()[0]
    finally:
        con.close()
    narrow = {"category": category, "group": "gender:female"}
    return {
        "overview": "/",
        "overview, one model": "/?" + urlencode({"model": MODELS[0]}),
        "overview, category + group (computed)": "/?" + urlencode(narrow),
        "attribute": "/attribute?" + urlencode({"value": value}),
        "attribute, model + category + group": "/attribute?"
        + urlencode({"value": value, "model": MODELS[1], **narrow}),
        "faces index, page 5": "/faces?page=5",
        "face (images with 6 models' means, one model's φ table)": "/face?" + urlencode({"id": face}),
        "judgments of one image × scenario (6 models)": "/judgments?"
        + urlencode({"image": image_id, "scenario": scenario}),
        "image thumbnail (placeholder: no files)": f"/image/{image_id}?w=160",
    }


def _serve(db: Path, thumbs: Path) -> tuple[uvicorn.Server, threading.Thread, str, float]:
    started = time.perf_counter()
    app = create_app(db, thumbs=thumbs)
    startup = time.perf_counter() - started
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}", startup


def _time(url: str, repeats: int) -> list[float]:
    times = []
    for i in range(repeats + 1):
        started = time.perf_counter()
        with urllib.request.urlopen(url, timeout=120) as response:
            response.read()
            assert response.status == 200, url
        if i:  # the first request warms up
            times.append(time.perf_counter() - started)
    return times


def _thumbnail_times(folder: Path) -> tuple[float, float]:
    picture = folder / "face.png"
    Image.effect_noise((1024, 1024), 64).convert("RGB").save(picture)
    started = time.perf_counter()
    thumbnail(picture, "0" * 64, 160, folder / "thumbs")
    first = time.perf_counter() - started
    started = time.perf_counter()
    thumbnail(picture, "0" * 64, 160, folder / "thumbs")
    return first, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "cueshift-paper.duckdb")
    parser.add_argument("--faces", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if not args.db.exists():
        print(f"[bench] building {args.db} (simulate, store, analyse: a few minutes) …", flush=True)
        build(args.db, args.faces)
    with tempfile.TemporaryDirectory() as tmp:
        server, thread, base, startup = _serve(args.db, Path(tmp) / "thumbs")
        con = store.open_study(args.db, read_only=True)
        (judgments,) = con.execute("SELECT count(*) FROM judgment").fetchall()[0]
        (images,) = con.execute("SELECT count(*) FROM image").fetchall()[0]
        con.close()
        print(
            f"[bench] {judgments:,} judgments, {images:,} images; viewer ready in {startup:.1f} s", flush=True
        )
        rows = []
        for label, path in _pages(args.db).items():
            times = _time(base + path, args.repeats)
            rows.append((label, path, statistics.median(times), max(times)))
            print(f"[bench] {label}: median {rows[-1][2]:.3f} s, max {rows[-1][3]:.3f} s", flush=True)
        server.should_exit = True
        thread.join()
        first, cached = _thumbnail_times(Path(tmp))
    print(
        f"[bench] thumbnail of a 1024 px PNG: first {first:.3f} s, cached {cached * 1000:.2f} ms", flush=True
    )
    if args.out:
        _write(args.out, rows, startup, int(judgments), int(images), first, cached, args.repeats)


def _write(
    path: Path,
    rows: list[tuple[str, str, float, float]],
    startup: float,
    judgments: int,
    images: int,
    first: float,
    cached: float,
    repeats: int,
) -> None:
    worst = max(r[3] for r in rows)
    lines = [
        START,
        "## Viewer at paper scale (`benchmarks/bench_view.py`)",
        "",
        "Command (repo root): "
        "`.venv/bin/python benchmarks/bench_view.py --db /tmp/paper.duckdb --out BENCHMARKS.md`",
        "",
        f"The simulated paper-scale study of `bench_analysis.py`: {judgments:,} judgments, "
        f"{images:,} images, "
        f"6 models, analysed. Machine: {platform.machine()}, {os.cpu_count()} CPU cores (shared). "
        f"Start-up (attach read-only, aggregate φ and Δ into memory once): **{startup:.1f} s**. "
        f"Each page requested once to warm up, then {repeats} times over loopback HTTP "
        f"(wall time per request, an upper bound of the server time). Target: every page < 1 s; "
        f"slowest request **{worst:.3f} s**.",
        "",
        "| page | median | max |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {label} | {median:.3f} s | {high:.3f} s |" for label, _, median, high in rows]
    lines += [
        "",
        f"Thumbnail of a 1024 × 1024 PNG at 160 px: made once in {first * 1000:.0f} ms, then read from the "
        f"disk cache in {cached * 1000:.2f} ms.",
        END,
    ]
    section = "\n".join(lines) + "\n"
    replace_section(path, section, START, END)


if __name__ == "__main__":
    main()
