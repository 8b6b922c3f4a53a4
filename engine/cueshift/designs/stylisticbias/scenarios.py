"""The scenarios of the StylisticBias design (seed 000 Table 1): 25 binary judgments in four
categories, the default of ``[scenarios] set``."""

from __future__ import annotations

from cueshift.study.scenarios import Scenario

PERSONALITY = "Personality & Social"
INTERPERSONAL = "Interpersonal"
BEHAVIORAL = "Behavioral"
SOCIOECONOMIC = "Socioeconomic & Appearance"
SCENARIO_CATEGORIES: tuple[str, ...] = (PERSONALITY, INTERPERSONAL, BEHAVIORAL, SOCIOECONOMIC)


def _scenario(favorable: str, unfavorable: str, category: str) -> Scenario:
    slug = favorable.lower().replace(" ", "_").replace("-", "_")
    return Scenario(slug, favorable, unfavorable, category)


#: The 25 scenarios in the released order and wording (seed 000 Table 1).
STYLISTICBIAS_25: tuple[Scenario, ...] = (
    _scenario("Competent", "Incompetent", PERSONALITY),
    _scenario("Likeable", "Unlikeable", PERSONALITY),
    _scenario("Intelligent", "Unintelligent", PERSONALITY),
    _scenario("Responsible", "Irresponsible", PERSONALITY),
    _scenario("Open-minded", "Closed-minded", PERSONALITY),
    _scenario("Conscientious", "Careless", PERSONALITY),
    _scenario("Extraverted", "Introverted", PERSONALITY),
    _scenario("Emotionally stable", "Anxious", PERSONALITY),
    _scenario("Confident", "Insecure", PERSONALITY),
    _scenario("Curious", "Indifferent", PERSONALITY),
    _scenario("Loving", "Cold", INTERPERSONAL),
    _scenario("Trustworthy", "Untrustworthy", INTERPERSONAL),
    _scenario("Obedient", "Unruly", BEHAVIORAL),
    _scenario("Peaceful", "Controversial", BEHAVIORAL),
    _scenario("Home owner", "Renter", SOCIOECONOMIC),
    _scenario("Educated", "Uneducated", SOCIOECONOMIC),
    _scenario("Attractive", "Unattractive", SOCIOECONOMIC),
    _scenario("Stylish", "Unstylish", SOCIOECONOMIC),
    _scenario("Friendly", "Unfriendly", INTERPERSONAL),
    _scenario("Loyal", "Disloyal", INTERPERSONAL),
    _scenario("Rational", "Emotional", BEHAVIORAL),
    _scenario("Independent", "Dependent", BEHAVIORAL),
    _scenario("Polite", "Rude", INTERPERSONAL),
    _scenario("Wealthy", "Poor", SOCIOECONOMIC),
    _scenario("Honest", "Fraudulent", INTERPERSONAL),
)

#: The value of ``[scenarios] set`` that names the 25 scenarios.
SCENARIO_SET = "stylisticbias-25"

#: The design's scenario sets by name (:attr:`cueshift.designs.protocol.Design.scenario_sets`).
SCENARIO_SETS: dict[str, tuple[Scenario, ...]] = {SCENARIO_SET: STYLISTICBIAS_25}
