"""MTCNN face detection (Zhang et al. 2016, "Joint face detection and alignment using multitask
cascaded convolutional networks") with facenet-pytorch's trained weights.

The cascade follows facenet-pytorch 2.6.0's ``detect_face``: an image pyramid (smallest face
``min_face`` pixels, scale step ``factor``) through P-Net, non-maximum suppression (IoU 0.5 per
scale, 0.7 overall), square boxes refined by R-Net on 24 x 24 crops and O-Net on 48 x 48 crops
(face probability thresholds ``thresholds``), O-Net's five landmarks (left eye, right eye, nose,
left and right mouth corner, as seen in the image) and a last suppression by the intersection
over the smaller box (0.7). Boxes are ``(x0, y0, x1, y1)`` in pixels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from cueshift._types import F64
from cueshift.inference.faces._mtcnn_nets import load_networks, run_onet, run_pnet, run_rnet
from cueshift.inference.faces.detection import FaceDetection


def nms(boxes: F64, scores: F64, threshold: float, *, by_min: bool = False) -> npt.NDArray[np.intp]:
    """Indices kept by greedy non-maximum suppression (overlap: IoU, or over the smaller box)."""
    x0, y0, x1, y1 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    area = (x1 - x0 + 1) * (y1 - y0 + 1)
    order = np.argsort(scores, kind="stable")
    keep: list[int] = []
    while order.size:
        i, rest = order[-1], order[:-1]
        keep.append(int(i))
        w = np.maximum(0.0, np.minimum(x1[i], x1[rest]) - np.maximum(x0[i], x0[rest]) + 1)
        h = np.maximum(0.0, np.minimum(y1[i], y1[rest]) - np.maximum(y0[i], y0[rest]) + 1)
        inter = w * h
        overlap = inter / (np.minimum(area[i], area[rest]) if by_min else area[i] + area[rest] - inter)
        order = rest[overlap <= threshold]
    return np.asarray(keep, dtype=np.intp)


def _square(boxes: F64) -> F64:
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    side = np.maximum(w, h)
    out = boxes.copy()
    out[:, 0] = boxes[:, 0] + w * 0.5 - side * 0.5
    out[:, 1] = boxes[:, 1] + h * 0.5 - side * 0.5
    out[:, 2:4] = out[:, :2] + side[:, None]
    return out


def _regress(boxes: F64, reg: F64) -> F64:
    w = boxes[:, 2] - boxes[:, 0] + 1
    h = boxes[:, 3] - boxes[:, 1] + 1
    out = boxes.copy()
    out[:, :4] = boxes[:, :4] + reg * np.stack([w, h, w, h], axis=1)
    return out


def _crops(image: Any, boxes: F64, size: int) -> Any:
    """``(N, 3, size, size)`` crops of the boxes (clipped to the image), area-resampled and normalised."""
    import torch
    import torch.nn.functional as functional

    height, width = image.shape[2], image.shape[3]
    whole = np.trunc(boxes[:, :4]).astype(int)
    x0, y0 = np.maximum(whole[:, 0], 1), np.maximum(whole[:, 1], 1)
    x1, y1 = np.minimum(whole[:, 2], width), np.minimum(whole[:, 3], height)
    crops = [
        functional.interpolate(
            image[:, :, y0[k] - 1 : y1[k], x0[k] - 1 : x1[k]], size=(size, size), mode="area"
        )
        for k in range(len(boxes))
    ]
    return (torch.cat(crops) - 127.5) * 0.0078125


def _box(row: F64) -> tuple[float, float, float, float]:
    return float(row[0]), float(row[1]), float(row[2]), float(row[3])


class MTCNN:
    """The trained MTCNN cascade: :meth:`detect` returns every face of an RGB image."""

    def __init__(
        self,
        *,
        min_face: int = 20,
        thresholds: tuple[float, float, float] = (0.6, 0.7, 0.7),
        factor: float = 0.709,
    ) -> None:
        self.pnet, self.rnet, self.onet = load_networks()
        self.min_face, self.thresholds, self.factor = min_face, thresholds, factor

    def detect(self, rgb: npt.NDArray[np.uint8]) -> list[FaceDetection]:
        """Faces of ``rgb`` (``(height, width, 3)`` uint8), most probable first."""
        import torch
        import torch.nn.functional as functional

        with torch.inference_mode():
            image = torch.from_numpy(np.array(rgb, dtype=np.float32)).permute(2, 0, 1)[None]
            height, width = rgb.shape[0], rgb.shape[1]
            scale, shortest, found = 12.0 / self.min_face, min(height, width) * 12.0 / self.min_face, []
            while shortest >= 12:
                size = (int(height * scale + 1), int(width * scale + 1))
                resized = (functional.interpolate(image, size=size, mode="area") - 127.5) * 0.0078125
                reg, prob = run_pnet(self.pnet, resized)
                rows, cols = np.nonzero(prob[0].numpy() >= self.thresholds[0])
                if rows.size:
                    cells = np.stack([cols, rows], axis=1).astype(np.float64)
                    q0, q1 = np.floor((2 * cells + 1) / scale), np.floor((2 * cells + 12) / scale)
                    score = prob[0].numpy()[rows, cols].astype(np.float64)
                    shifts = reg[0].numpy()[:, rows, cols].T.astype(np.float64)
                    boxes = np.concatenate([q0, q1, score[:, None], shifts], axis=1)
                    found.append(boxes[nms(boxes[:, :4], boxes[:, 4], 0.5)])
                scale, shortest = scale * self.factor, shortest * self.factor
            if not found:
                return []
            boxes = np.concatenate(found)
            boxes = boxes[nms(boxes[:, :4], boxes[:, 4], 0.7)]
            boxes = _square(np.column_stack([_regress(boxes[:, :4], boxes[:, 5:9]), boxes[:, 4]]))
            reg_r, prob_r = (
                t.numpy().astype(np.float64) for t in run_rnet(self.rnet, _crops(image, boxes, 24))
            )
            keep = prob_r > self.thresholds[1]
            boxes = np.column_stack([boxes[keep, :4], prob_r[keep]])
            if not len(boxes):
                return []
            picked = nms(boxes[:, :4], boxes[:, 4], 0.7)
            boxes = _square(_regress(boxes[picked], reg_r[keep][picked]))
            out = run_onet(self.onet, _crops(image, boxes, 48))
            reg_o, marks, prob_o = (t.numpy().astype(np.float64) for t in out)
            keep = prob_o > self.thresholds[2]
            boxes, marks, reg_o = np.column_stack([boxes[keep, :4], prob_o[keep]]), marks[keep], reg_o[keep]
            w, h = boxes[:, 2:3] - boxes[:, 0:1] + 1, boxes[:, 3:4] - boxes[:, 1:2] + 1
            points = np.stack(
                [w * marks[:, :5] + boxes[:, 0:1] - 1, h * marks[:, 5:] + boxes[:, 1:2] - 1], axis=2
            )
            boxes = _regress(boxes, reg_o)
            picked = nms(boxes[:, :4], boxes[:, 4], 0.7, by_min=True)
        return [
            FaceDetection(box=_box(boxes[i]), landmarks=points[i], score=float(boxes[i, 4])) for i in picked
        ]


__all__ = ["MTCNN", "nms"]
