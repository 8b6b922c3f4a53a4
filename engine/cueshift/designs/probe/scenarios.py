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

#: The value of ``[scenarios] set`` that names the 34 attributes.
SCENARIO_SET = "omi-34"

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
#: The design's scenario sets by name (:attr:`cueshift.designs.protocol.Design.scenario_sets`).
SCENARIO_SETS: dict[str, tuple[Scenario, ...]] = {SCENARIO_SET: OMI_34}
