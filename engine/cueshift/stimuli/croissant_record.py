"""The Croissant record (MLCommons' JSON-LD) of a built set's release layout.

``release/images.csv`` holds one row per image: the manifest's columns, ``path`` inside the
release (``output/final_dataset/<face>/<stem>.png``) and the provenance columns; ``croissant.json``
declares it as a file object, the PNGs as a file set, and one record set ``images`` with a field
per column, so a Croissant reader (``mlcroissant``, :func:`cueshift.images.croissant.read_croissant`)
reads every image and how it was made.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl

from cueshift.stimuli.output import release_stem

#: The JSON-LD context of Croissant 1.0 (the keys this record uses).
_CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/", "dct": "http://purl.org/dc/terms/",
    "citeAs": "cr:citeAs", "column": "cr:column", "conformsTo": "dct:conformsTo",
    "data": {"@id": "cr:data", "@type": "@json"}, "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileObject": "cr:fileObject", "fileProperty": "cr:fileProperty",
    "fileSet": "cr:fileSet", "format": "cr:format", "includes": "cr:includes", "key": "cr:key",
    "md5": "cr:md5", "recordSet": "cr:recordSet", "references": "cr:references", "source": "cr:source",
    "transform": "cr:transform", "rai": "http://mlcommons.org/croissant/RAI/",
    "equivalentProperty": "cr:equivalentProperty", "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath", "parentField": "cr:parentField", "path": "cr:path", "regex": "cr:regex",
    "repeated": "cr:repeated", "replace": "cr:replace", "samplingRate": "cr:samplingRate",
    "separator": "cr:separator", "subField": "cr:subField",
}  # fmt: skip
TABLE = "images.csv"


def release_table(rows: pl.DataFrame) -> pl.DataFrame:
    """The manifest rows with ``path`` inside the release layout (``source`` dropped: always this build)."""
    paths = [
        f"output/final_dataset/{row['face_id']}/{release_stem(row)}.png" for row in rows.iter_rows(named=True)
    ]
    return rows.drop("source").with_columns(pl.Series("path", paths, dtype=pl.String))


def write_croissant(release: Path, name: str, rows: pl.DataFrame) -> Path:
    """``release/images.csv`` and ``release/croissant.json`` describing it; the record's path."""
    table = release_table(rows)
    csv_path = release / TABLE
    table.write_csv(csv_path)
    fields = [
        {
            "@type": "cr:Field",
            "@id": f"images/{column}",
            "name": column,
            "dataType": "sc:Text",
            "source": {"fileObject": {"@id": TABLE}, "extract": {"column": column}},
        }
        for column in table.columns
    ]
    record = {
        "@context": _CONTEXT,
        "@type": "sc:Dataset",
        "name": name,
        "description": f"{table.height} images made by cueshift build: base faces and single-cue variations.",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "license": "https://creativecommons.org/licenses/by/4.0/",
        "url": "https://example.org/cueshift-build",
        "version": "1.0.0",
        "citeAs": f"{name} (cueshift build)",
        "distribution": [
            {
                "@type": "cr:FileObject",
                "@id": TABLE,
                "name": TABLE,
                "contentUrl": TABLE,
                "encodingFormat": "text/csv",
                "sha256": hashlib.sha256(csv_path.read_bytes()).hexdigest(),
            },
            {
                "@type": "cr:FileSet",
                "@id": "png-files",
                "name": "png-files",
                "encodingFormat": "image/png",
                "includes": "output/final_dataset/*/*.png",
            },
        ],
        "recordSet": [{"@type": "cr:RecordSet", "@id": "images", "name": "images", "field": fields}],
    }
    path = release / "croissant.json"
    path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return path


__all__ = ["TABLE", "release_table", "write_croissant"]
