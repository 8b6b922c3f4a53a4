"""The planted impression structure of the simulated world: which OMI attributes share a latent
factor, and how consistent the synthetic human raters are on each.

Read by the simulated judge's impressions (:mod:`~cueshift.inference.stand_ins.simulated_design_latents`)
and by the probe design's synthetic raters, so that both see one world. The attributes are those
of the probe design's scenario set (:mod:`cueshift.designs.probe.scenarios`, seed 004).
"""

from __future__ import annotations

#: Latent cluster of each attribute in the synthetic impressions (a planted structure that
#: Ward clustering should recover); attributes not listed load on no shared factor.
SYNTHETIC_CLUSTERS: dict[str, str] = {
    **dict.fromkeys(
        ("trustworthy", "attractive", "smart", "happy", "familiar", "outgoing", "memorable", "well-groomed",
         "cute", "electable", "alert", "privileged", "typical"), "valence"),
    **dict.fromkeys(
        ("dominant", "smug", "age", "gender", "weight", "gay", "godly", "liberal", "dorky", "looks-like-you"),
        "dominance"),
    **dict.fromkeys(
        ("skin-color", "hair-color", "asian", "middle-eastern", "hispanic", "islander", "native", "black",
         "white"), "ethnicity"),
}  # fmt: skip

#: Synthetic human consistency per attribute (share of rating variance that is shared
#: across raters), ordered like the model-human similarities of seed 004 Table 1: visible,
#: societally shared impressions high, unobservable ones low.
SYNTHETIC_CONSISTENCY: dict[str, float] = {
    "happy": 0.9, "gender": 0.9, "age": 0.85, "asian": 0.85, "hispanic": 0.8, "outdoors": 0.85,
    "islander": 0.75, "middle-eastern": 0.7, "native": 0.7, "weight": 0.75, "hair-color": 0.7,
    "cute": 0.65, "long-haired": 0.7, "gay": 0.5, "attractive": 0.55, "electable": 0.45, "smart": 0.45,
    "black": 0.6, "smug": 0.4, "trustworthy": 0.4, "skin-color": 0.6, "outgoing": 0.4, "privileged": 0.35,
    "godly": 0.3, "liberal": 0.3, "typical": 0.25, "dorky": 0.3, "familiar": 0.2, "well-groomed": 0.35,
    "dominant": 0.3, "memorable": 0.2, "white": 0.5, "looks-like-you": 0.15, "alert": 0.15,
}  # fmt: skip
