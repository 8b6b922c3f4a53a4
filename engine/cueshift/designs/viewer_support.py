"""What a design tells ``cueshift view``, as data: the viewer reads it from the design registry.

The viewer sits above the designs and implements every page; a design only says which of its
study-file sections name image folders (so the viewer finds the images of its runs) and which of
the viewer's design pages to link from the navigation and the overview (:class:`ViewerSupport`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ViewerPage:
    """A page of ``cueshift view`` that a design links from the navigation bar and the overview.

    Attributes
    ----------
    path
        The viewer's route (``"/pairwise"``); the page is implemented by the viewer.
    label
        The navigation bar's link text.
    lead
        The overview's one-line pointer to the page.
    table
        Link from the navigation bar only when the study database holds this table (``None``:
        always).
    """

    path: str
    label: str
    lead: str
    table: str | None = None

    @property
    def key(self) -> str:
        """The page's name in element ids (``nav-<key>``).

        >>> ViewerPage("/pairwise", "Pairwise trials", "Both images and the choice").key
        'pairwise'
        """
        return self.path.strip("/").replace("/", "-")


@dataclass(frozen=True)
class ViewerSupport:
    """What ``cueshift view`` shows for a design beyond the pages every study has.

    Attributes
    ----------
    image_sections
        Sections of the design's study file that may name image folders of their own
        (``<section>.synthetic.cache_dir``, ``stimuli``, ``manifest``, ``root``), besides
        ``[benchmark]``.
    pages
        The viewer's design pages to link (:class:`ViewerPage`).
    delta
        Whether the design's judgments have base/variation Δ, so the overview says so when none is
        in view yet (``False``: the overview is silent about Δ).
    """

    image_sections: tuple[str, ...] = ()
    pages: tuple[ViewerPage, ...] = ()
    delta: bool = True


__all__ = ["ViewerPage", "ViewerSupport"]
