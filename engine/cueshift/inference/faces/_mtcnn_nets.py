"""The three networks of MTCNN (Zhang et al. 2016), laid out as facenet-pytorch's, with its trained weights.

The ``facenet-pytorch`` wheel ships the trained P-, R- and O-Net weights as plain state dicts
(``facenet_pytorch/data/{pnet,rnet,onet}.pt``). Importing that package needs torchvision and its
pinned dependencies, so the files are read by path from the installed distribution and loaded
into these networks of the same layout (same parameter names: ``load_state_dict`` is strict).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cueshift.errors import MissingExtra
from cueshift.extras import importing


def weights_path(name: str) -> Path:
    """The installed ``facenet_pytorch/data/<name>.pt`` (:class:`MissingExtra` when not installed)."""
    from importlib import metadata

    try:
        distribution = metadata.distribution("facenet-pytorch")
    except metadata.PackageNotFoundError:
        raise MissingExtra("the MTCNN face detector", "faces", "facenet_pytorch") from None
    path = Path(str(distribution.locate_file(f"facenet_pytorch/data/{name}.pt")))
    if not path.is_file():
        raise MissingExtra("the MTCNN face detector", "faces", "facenet_pytorch")
    return path


def load_networks() -> tuple[Any, Any, Any]:
    """``(pnet, rnet, onet)`` in eval mode with the trained weights (CPU, float32)."""
    with importing("models", "the MTCNN face detector"):
        import torch
        from torch import nn

    def stage(layers: list[tuple[str, nn.Module]]) -> nn.Module:
        module = nn.Module()
        for name, layer in layers:
            module.add_module(name, layer)
        return module

    def conv(name: str, c_in: int, c_out: int, k: int) -> list[tuple[str, nn.Module]]:
        return [(f"conv{name}", nn.Conv2d(c_in, c_out, kernel_size=k)), (f"prelu{name}", nn.PReLU(c_out))]

    pnet = stage(
        [*conv("1", 3, 10, 3), *conv("2", 10, 16, 3), *conv("3", 16, 32, 3)]
        + [("conv4_1", nn.Conv2d(32, 2, 1)), ("conv4_2", nn.Conv2d(32, 4, 1))]
    )
    rnet = stage(
        [*conv("1", 3, 28, 3), *conv("2", 28, 48, 3), *conv("3", 48, 64, 2)]
        + [("dense4", nn.Linear(576, 128)), ("prelu4", nn.PReLU(128))]
        + [("dense5_1", nn.Linear(128, 2)), ("dense5_2", nn.Linear(128, 4))]
    )
    onet = stage(
        [*conv("1", 3, 32, 3), *conv("2", 32, 64, 3), *conv("3", 64, 64, 3), *conv("4", 64, 128, 2)]
        + [("dense5", nn.Linear(1152, 256)), ("prelu5", nn.PReLU(256))]
        + [("dense6_1", nn.Linear(256, 2)), ("dense6_2", nn.Linear(256, 4)), ("dense6_3", nn.Linear(256, 10))]
    )
    for net, name in ((pnet, "pnet"), (rnet, "rnet"), (onet, "onet")):
        net.load_state_dict(torch.load(weights_path(name), map_location="cpu", weights_only=True))
        net.eval()
    return pnet, rnet, onet


def run_pnet(pnet: Any, x: Any) -> tuple[Any, Any]:
    """P-Net: ``(box regression (N,4,h,w), face probability (N,h,w))`` of a batch ``(N,3,H,W)``."""
    import torch.nn.functional as functional

    x = functional.max_pool2d(pnet.prelu1(pnet.conv1(x)), 2, 2, ceil_mode=True)
    x = pnet.prelu3(pnet.conv3(pnet.prelu2(pnet.conv2(x))))
    return pnet.conv4_2(x), functional.softmax(pnet.conv4_1(x), dim=1)[:, 1]


def run_rnet(rnet: Any, x: Any) -> tuple[Any, Any]:
    """R-Net on 24 x 24 crops: ``(box regression (N,4), face probability (N,))``."""
    import torch.nn.functional as functional

    x = functional.max_pool2d(rnet.prelu1(rnet.conv1(x)), 3, 2, ceil_mode=True)
    x = functional.max_pool2d(rnet.prelu2(rnet.conv2(x)), 3, 2, ceil_mode=True)
    x = rnet.prelu3(rnet.conv3(x)).permute(0, 3, 2, 1).contiguous()
    x = rnet.prelu4(rnet.dense4(x.view(x.shape[0], -1)))
    return rnet.dense5_2(x), functional.softmax(rnet.dense5_1(x), dim=1)[:, 1]


def run_onet(onet: Any, x: Any) -> tuple[Any, Any, Any]:
    """O-Net on 48 x 48 crops: ``(box regression (N,4), landmarks (N,10), face probability (N,))``."""
    import torch.nn.functional as functional

    x = functional.max_pool2d(onet.prelu1(onet.conv1(x)), 3, 2, ceil_mode=True)
    x = functional.max_pool2d(onet.prelu2(onet.conv2(x)), 3, 2, ceil_mode=True)
    x = functional.max_pool2d(onet.prelu3(onet.conv3(x)), 2, 2, ceil_mode=True)
    x = onet.prelu4(onet.conv4(x)).permute(0, 3, 2, 1).contiguous()
    x = onet.prelu5(onet.dense5(x.view(x.shape[0], -1)))
    return onet.dense6_2(x), onet.dense6_3(x), functional.softmax(onet.dense6_1(x), dim=1)[:, 1]
