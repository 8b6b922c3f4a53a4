"""The 34 facial-impression attributes of the One Million Impressions data (seed 004, App.
"CLIP Prompts"), as bipolar scenarios: ``favorable`` is the positive pole, ``unfavorable``
the negative pole.

Where the paper's negative pole is the neutral "a photo of someone" (ethnicities, alert,
cute, ...), a forced-choice judge needs an explicit alternative, so the negative pole is
written ``not <positive>``; CLIP users who want the paper's neutral prompt map it through
the CLIP backend's ``phrases`` setting.
"""

from __future__ import annotations

from cueshift.study.scenarios import Scenario

SCENARIO_SET_004 = "omi-34"

SOCIAL = "Social traits"
DEMOGRAPHIC = "Demographics"
ETHNICITY = "Ethnicity & colouring"
APPEARANCE = "Appearance & setting"

#: (attribute id, positive pole, negative pole, category), in the paper's prompt order.
_OMI: tuple[tuple[str, str, str, str], ...] = (
    ("trustworthy", "trustworthy", "devious", SOCIAL),
    ("attractive", "attractive", "ugly", SOCIAL),
    ("dominant", "dominant", "subordinate", SOCIAL),
    ("smart", "smart", "dumb", SOCIAL),
    ("age", "older", "young", DEMOGRAPHIC),
    ("gender", "male", "female", DEMOGRAPHIC),
    ("weight", "overweight", "skinny", DEMOGRAPHIC),
    ("typical", "typical", "unusual", SOCIAL),
    ("happy", "happy", "sad", SOCIAL),
    ("familiar", "familiar", "strange", SOCIAL),
    ("outgoing", "outgoing", "shy", SOCIAL),
    ("memorable", "memorable", "forgettable", SOCIAL),
    ("well-groomed", "well-groomed", "unkempt", SOCIAL),
    ("long-haired", "long-haired", "not long-haired", APPEARANCE),
    ("smug", "smug", "humble", SOCIAL),
    ("dorky", "dorky", "not dorky", SOCIAL),
    ("skin-color", "dark-skinned", "light-skinned", ETHNICITY),
    ("hair-color", "dark-haired", "light-haired", ETHNICITY),
    ("alert", "alert", "not alert", SOCIAL),
    ("cute", "cute", "not cute", SOCIAL),
    ("privileged", "privileged", "disadvantaged", SOCIAL),
    ("liberal", "liberal", "conservative", SOCIAL),
    ("asian", "Asian", "not Asian", ETHNICITY),
    ("middle-eastern", "Middle Eastern", "not Middle Eastern", ETHNICITY),
    ("hispanic", "Hispanic", "not Hispanic", ETHNICITY),
    ("islander", "a Pacific Islander", "not a Pacific Islander", ETHNICITY),
    ("native", "a Native American", "not a Native American", ETHNICITY),
    ("black", "Black", "not Black", ETHNICITY),
    ("white", "White", "not White", ETHNICITY),
    ("looks-like-you", "looks like me", "looks like other people", SOCIAL),
    ("gay", "gay", "straight", SOCIAL),
    ("electable", "electable", "not electable", SOCIAL),
    ("godly", "godly", "sinful", SOCIAL),
    ("outdoors", "outdoors", "inside", APPEARANCE),
)

OMI_34: tuple[Scenario, ...] = tuple(
    Scenario(scenario_id=a, favorable=p, unfavorable=n, category=c, family="omi") for a, p, n, c in _OMI
)
OMI_ATTRIBUTES: tuple[str, ...] = tuple(a for a, _, _, _ in _OMI)

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
