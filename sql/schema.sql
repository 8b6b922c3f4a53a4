-- cueshift study database: the tables every study design writes to.
-- Loaded by cueshift.store.open_study(); safe to run again (IF NOT EXISTS).
-- Usable as is:  duckdb study.duckdb < sql/schema.sql

-- Which version of this file made the database; cueshift refuses a database of another version.
CREATE TABLE IF NOT EXISTS cueshift_meta (
    key    VARCHAR PRIMARY KEY,
    value  VARCHAR NOT NULL
);
INSERT INTO cueshift_meta VALUES ('schema_version', '5') ON CONFLICT DO NOTHING;

-- A face: the person held fixed across its images (a StylisticBias base face, a 001 individual,
-- a 002/004 stimulus person). Demographics are perceived labels, not ground truth.
CREATE TABLE IF NOT EXISTS face (
    face_id      VARCHAR PRIMARY KEY,
    source       VARCHAR NOT NULL,          -- image set / dataset the face comes from
    age          VARCHAR,                   -- 'young adult' | 'middle-aged adult' | 'elderly' | dataset labels
    gender       VARCHAR,
    ethnicity    VARCHAR,
    body_type    VARCHAR,
    attributes   JSON                       -- any further dataset-specific labels
);

-- An image of one face: its base (reference) image or a condition derived from a base.
CREATE TABLE IF NOT EXISTS image (
    image_id            VARCHAR PRIMARY KEY,
    face_id             VARCHAR NOT NULL REFERENCES face (face_id),
    role                VARCHAR NOT NULL CHECK (role IN ('base', 'variation')),
    base_image_id       VARCHAR,            -- the image this one varies (NULL for a base)
    variation_category  VARCHAR,            -- e.g. 'Fashion', 'Eyewear'; 'Beauty filter' for seed 001
    feature_key         VARCHAR,            -- e.g. 'fashion_style', 'eyewear'
    variation_value     VARCHAR,            -- e.g. 'Worn / Distressed clothing'
    framing             VARCHAR NOT NULL,   -- 'face' (head-and-shoulders) | 'body' (full body) | other
    path                VARCHAR NOT NULL,   -- relative to the image-set root
    sha256              VARCHAR NOT NULL,
    width               INTEGER,
    height              INTEGER,
    evaluated           BOOLEAN NOT NULL,   -- passes the study's variation filter
    exclusion_reason    VARCHAR,            -- why not evaluated (NULL when evaluated)
    CHECK ((role = 'base') = (base_image_id IS NULL))
);

-- A binary judgment task. phi measures the share choosing `favorable` (seed 000 Eq. 1);
-- for designs without a normative pole (seed 001 jobs) `favorable` is the canonical first option.
CREATE TABLE IF NOT EXISTS scenario (
    scenario_id   VARCHAR PRIMARY KEY,
    scenario_set  VARCHAR NOT NULL,
    position      INTEGER NOT NULL,         -- order within its set
    favorable     VARCHAR NOT NULL,
    unfavorable   VARCHAR NOT NULL,
    category      VARCHAR NOT NULL,         -- e.g. 'Personality & Social'
    family        VARCHAR                   -- optional coarser grouping (seed 001: jobs / traits / conditions)
);

-- The prompt template of the study and its order/label variants (seed 000 Appendix C.2).
CREATE TABLE IF NOT EXISTS prompt_variant (
    ordering          INTEGER PRIMARY KEY,  -- 1..4
    favorable_letter  VARCHAR NOT NULL CHECK (favorable_letter IN ('a', 'b')),
    favorable_first   BOOLEAN NOT NULL,     -- favorable descriptor written first in the prompt
    template          VARCHAR NOT NULL,     -- with {first_letter} {first} {second_letter} {second}
    example_prompt    VARCHAR NOT NULL      -- the rendered text for a sample scenario
);

CREATE TABLE IF NOT EXISTS model (
    model_id    VARCHAR PRIMARY KEY,        -- the study's name for it, e.g. 'sim-judge'
    backend     VARCHAR NOT NULL,           -- 'simulated' | 'transformers' | 'openai' | 'clip'
    checkpoint  VARCHAR NOT NULL,
    revision    VARCHAR,
    settings    JSON NOT NULL               -- decoding / backend settings (never secrets)
);

CREATE TABLE IF NOT EXISTS run (
    run_id        VARCHAR PRIMARY KEY,
    study_name    VARCHAR NOT NULL,
    shard         VARCHAR NOT NULL,         -- 'K/N', '1/1' when unsharded
    config        JSON NOT NULL,
    versions      JSON NOT NULL,
    started_at    TIMESTAMP NOT NULL,
    finished_at   TIMESTAMP,
    n_planned     BIGINT NOT NULL,
    n_written     BIGINT,                   -- NULL until the run finishes
    backend_report JSON                     -- per model: what its backend learnt (server identity,
                                            -- consistency probe); NULL until the run finishes
);
-- Databases made before backend_report existed get it here (nothing else changed in the table).
ALTER TABLE run ADD COLUMN IF NOT EXISTS backend_report JSON;

-- A request its backend gave up on (retries exhausted, or refused by the server): one row per
-- unit and run. The unit stays unanswered; later runs ask it again until it has failed in
-- max_failed_runs runs (3 by default), then report it instead of asking.
CREATE TABLE IF NOT EXISTS request_failure (
    model_id    VARCHAR NOT NULL,
    unit_table  VARCHAR NOT NULL,           -- where its answer goes: 'judgment', 'pairwise_trial', 'rating'
    unit_key    VARCHAR NOT NULL,           -- the unit's key besides the model, a JSON object
    run_id      VARCHAR NOT NULL,
    attempts    INTEGER NOT NULL,           -- requests sent for it in this run
    error       VARCHAR NOT NULL,           -- the last error: one line, secrets redacted
    failed_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (model_id, unit_table, unit_key, run_id)
);

-- One forced-choice answer, unique per (model_id, image_id, scenario_id, ordering, seed). No primary-key
-- index (maintaining it cost more than the rest of a write): the key is unique by construction and
-- checked by `analyze` and `merge` (engine/cueshift/store/keys.py).
CREATE TABLE IF NOT EXISTS judgment (
    model_id       VARCHAR NOT NULL,
    image_id       VARCHAR NOT NULL,
    scenario_id    VARCHAR NOT NULL,
    ordering       INTEGER NOT NULL,
    seed           INTEGER NOT NULL,        -- 0 for deterministic score-mode judgments
    response_text  VARCHAR NOT NULL,
    outcome        VARCHAR NOT NULL CHECK (outcome IN ('favorable', 'unfavorable', 'invalid')),
    chosen_letter  VARCHAR CHECK (chosen_letter IN ('a', 'b')),
    invalid_reason VARCHAR,                 -- why the parser refused the answer (refusal, hedge, both, ...); NULL when valid or not recorded
    p_favorable    DOUBLE,                  -- scoring backends: P(answer names the favorable pole)
    p_neither      DOUBLE,                  -- scoring backends: probability mass on neither letter
    association    DOUBLE,                  -- probe backends (CLIP): m = cos(i, t+) - cos(i, t-) (seed 004 Eq. 1)
    logit_scale    DOUBLE,                  -- probe backends: the model's s, with p_favorable = sigmoid(s * m)
    latency_ms     DOUBLE NOT NULL,
    created_at     TIMESTAMP NOT NULL,
    run_id         VARCHAR NOT NULL
);

-- Reserved for the further seed designs (filled by their own runners; no code writes them yet).
-- Seed 002: two images side by side, the judge picks one.
CREATE TABLE IF NOT EXISTS pairwise_trial (
    model_id        VARCHAR NOT NULL,
    left_image_id   VARCHAR NOT NULL,
    right_image_id  VARCHAR NOT NULL,
    scenario_id     VARCHAR NOT NULL,
    seed            INTEGER NOT NULL,
    response_text   VARCHAR NOT NULL,
    winner_image_id VARCHAR,                -- NULL when the answer is invalid
    latency_ms      DOUBLE NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    run_id          VARCHAR NOT NULL,
    PRIMARY KEY (model_id, left_image_id, right_image_id, scenario_id, seed)
);
-- Seeds 002/004: scalar ratings of one image on one attribute, by a model or a human rater.
CREATE TABLE IF NOT EXISTS rating (
    rater_id      VARCHAR NOT NULL,         -- a model_id or a human rater id
    rater_kind    VARCHAR NOT NULL CHECK (rater_kind IN ('model', 'human')),
    image_id      VARCHAR NOT NULL,
    attribute     VARCHAR NOT NULL,
    seed          INTEGER NOT NULL,
    rating        DOUBLE,                   -- NULL when the answer is invalid
    response_text VARCHAR,
    created_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (rater_id, image_id, attribute, seed)
);
-- Seed 004: the embedding cache of probe backends (CLIP). An embedding depends on the encoder and
-- its input only, so it is keyed by those, never by a study's model_id or probe templates: every
-- model entry of the same checkpoint shares it, and new templates re-score without re-encoding images.
CREATE TABLE IF NOT EXISTS embedding (
    encoder    VARCHAR NOT NULL,            -- '<checkpoint>@<revision>:<dtype>', e.g. 'openai/clip-vit-large-patch14@default:float16';
                                            -- the CLIP judge's end in its encoding version, '#encoding=2' (D50; older ones are not reused)
    kind       VARCHAR NOT NULL CHECK (kind IN ('image', 'text')),
    item_key   VARCHAR NOT NULL,            -- the image's content (SHA-256 of the file), or the probe text
    vector     FLOAT[] NOT NULL,            -- raw projected features (not normalised)
    PRIMARY KEY (encoder, kind, item_key)
);
-- Seed 002: cohort and stimulus group (e.g. 'western' / 'local') of each pairwise stimulus.
CREATE TABLE IF NOT EXISTS stimulus (
    image_id        VARCHAR PRIMARY KEY,
    cohort          VARCHAR NOT NULL,       -- e.g. 'East Asian female'
    stimulus_group  VARCHAR NOT NULL        -- the compared class, e.g. 'western' | 'local'
);
-- Seed 004: per-stimulus human means when only means are published (e.g. OMI).
CREATE TABLE IF NOT EXISTS human_rating_mean (
    image_id   VARCHAR NOT NULL,
    attribute  VARCHAR NOT NULL,
    mean       DOUBLE NOT NULL,
    n_raters   BIGINT,
    source     VARCHAR NOT NULL,
    PRIMARY KEY (image_id, attribute)
);
-- Judgments imported from runs of the StylisticBias release code (`cueshift import judgments`): what
-- the release itself recorded, beside our strict re-parse of the same raw answer in `judgment`.
CREATE TABLE IF NOT EXISTS release_judgment (
    model_id           VARCHAR NOT NULL,
    image_id           VARCHAR NOT NULL,
    scenario_id        VARCHAR NOT NULL,
    ordering           INTEGER NOT NULL,
    seed               INTEGER NOT NULL,
    chosen_option      VARCHAR,             -- the release's own reading of the answer, as written
    release_letter     VARCHAR CHECK (release_letter IN ('a', 'b')),  -- chosen_option as a letter
    source_file        VARCHAR NOT NULL,    -- relative to the imported judgements folder
    release_timestamp  VARCHAR,             -- the file's timestamp, as written
    run_id             VARCHAR NOT NULL,
    PRIMARY KEY (model_id, image_id, scenario_id, ordering, seed)
);
-- Counterfactual quality (`[quality] encoder`, filled by `cueshift analyze`): identity preservation of
-- each evaluated variation, the cosine of its image embedding with its base's (the encoder's vectors
-- are in `embedding`), and its robust z within its attribute (feature_key); outlier when z < -3.5.
CREATE TABLE IF NOT EXISTS image_identity (
    encoder        VARCHAR NOT NULL,        -- the embedding cache's encoder key of the vision tower
    image_id       VARCHAR NOT NULL,        -- the variation
    base_image_id  VARCHAR NOT NULL,
    feature_key    VARCHAR NOT NULL,
    cosine         DOUBLE NOT NULL,
    robust_z       DOUBLE,                  -- 0.6745 (cosine - median) / MAD within feature_key
    outlier        BOOLEAN NOT NULL,
    PRIMARY KEY (encoder, image_id)
);
-- The edit audit (`cueshift audit`, or `cueshift analyze --audit`): for each evaluated variation, one row
-- per measure of the edit against its base. check_kind 'cue': is the intended cue there (CLIP detectability
-- of the variation's value, pixels changed at all); 'unintended': what else moved (image and face-region
-- statistics, CLIP probes of confounds); 'identity': identity preservation. A measure fails against its
-- absolute bound and/or its robust z within the attribute (feature_key). Replaced whole by each audit.
CREATE TABLE IF NOT EXISTS edit_audit (
    image_id            VARCHAR NOT NULL,   -- the variation
    base_image_id       VARCHAR NOT NULL,
    face_id             VARCHAR NOT NULL,
    feature_key         VARCHAR NOT NULL,
    variation_value     VARCHAR,
    check_kind          VARCHAR NOT NULL CHECK (check_kind IN ('cue', 'unintended', 'identity')),
    measure             VARCHAR NOT NULL,   -- e.g. 'cue_probability', 'changed_pixels', 'brightness', 'face_brightness', 'probe_expression', 'identity_cosine'
    source              VARCHAR NOT NULL,   -- 'pixels', or the embedding cache's encoder key
    measured_base       DOUBLE,             -- the measure on the base (NULL for a measure of the pair)
    measured_variation  DOUBLE,             -- the measure on the variation (NULL for a measure of the pair)
    difference          DOUBLE NOT NULL,    -- variation - base, or the pair's measure
    robust_z            DOUBLE,             -- 0.6745 (difference - median) / MAD within feature_key
    bound               DOUBLE,             -- the absolute bound or threshold applied (NULL: none)
    failed              BOOLEAN NOT NULL,
    reason              VARCHAR,            -- one line saying why, when failed
    PRIMARY KEY (image_id, measure)
);
-- Every generator call of `cueshift build` (base faces and their variations): one row per try of an
-- image slot. outcome 'ok' (kept), 'refused' / 'failed' (the generator's answer), 'rejected' (made,
-- then turned down by the edit audit; message says why). The last try of a slot is its verdict.
-- A new table (no schema-version change: created where missing, like every table here).
CREATE TABLE IF NOT EXISTS generation (
    image_id         VARCHAR NOT NULL,       -- the image slot (a base, or base--feature--value)
    parent_id        VARCHAR,                -- a variation's base
    stage            VARCHAR NOT NULL CHECK (stage IN ('base', 'variation')),
    backend          VARCHAR NOT NULL,       -- the generator's registry name
    model            VARCHAR NOT NULL,
    prompt           VARCHAR NOT NULL,
    seed             BIGINT NOT NULL,
    try              INTEGER NOT NULL,       -- 1 .. [build] max_tries
    outcome          VARCHAR NOT NULL CHECK (outcome IN ('ok', 'refused', 'failed', 'rejected')),
    message          VARCHAR NOT NULL,
    sha256           VARCHAR,                -- content hash of the image made (ok, rejected)
    seconds          DOUBLE NOT NULL,
    cell             VARCHAR NOT NULL,       -- the base's demographic cell, e.g. 'elderly / female / ...'
    feature_key      VARCHAR,
    variation_value  VARCHAR,
    run_id           VARCHAR NOT NULL,
    PRIMARY KEY (image_id, try)
);
-- The face detector of the edit audit (`[audit.faces]`, docs/faces.md): one row per base and variation
-- audited, what the detector found. 'no face' and 'several faces' are findings kept as rows; with several,
-- the largest face is *the* face. Positions are fractions of the image (x of its width, y of its height);
-- left/right as the image shows them. Replaced whole by each audit, with edit_audit.
-- A new table (no schema-version change: created where missing, like every table here).
CREATE TABLE IF NOT EXISTS face_detection (
    image_id       VARCHAR NOT NULL,        -- a base or a variation of the audit
    detector       VARCHAR NOT NULL,        -- 'mtcnn' | 'dlib-hog' | 'dlib-cnn'
    face_count     INTEGER NOT NULL,        -- faces found
    finding        VARCHAR NOT NULL CHECK (finding IN ('one face', 'no face', 'several faces')),
    score          DOUBLE,                  -- the detector's score of the face (MTCNN: a probability; dlib: SVM/MMOD confidence)
    x0             DOUBLE,                  -- the face's box, NULL with no face
    y0             DOUBLE,
    x1             DOUBLE,
    y1             DOUBLE,
    left_eye_x     DOUBLE,                  -- the five landmarks, NULL with no face
    left_eye_y     DOUBLE,
    right_eye_x    DOUBLE,
    right_eye_y    DOUBLE,
    nose_x         DOUBLE,
    nose_y         DOUBLE,
    mouth_left_x   DOUBLE,
    mouth_left_y   DOUBLE,
    mouth_right_x  DOUBLE,
    mouth_right_y  DOUBLE,
    skin_ita       DOUBLE,                  -- individual typology angle (ITA°) of the face's skin
    PRIMARY KEY (image_id, detector)
);
-- Skin tone of the edit audit (`[audit.faces]`): the ITA° change of the edits (edit_audit's skin_ita,
-- variation - base; positive = lighter), averaged within each base face, then over faces, with
-- face-level bootstrap intervals at confidence_level. summary 'attribute': one attribute value over every face; 'group': one
-- ethnicity x gender over every edit or within one attribute value; 'difference': one ethnicity's faces
-- minus all other faces. A key column that does not split the cell holds '(all)'. Replaced whole by
-- each audit, with edit_audit. A new table (no schema-version change: created where missing).
CREATE TABLE IF NOT EXISTS audit_skin_tone (
    summary          VARCHAR NOT NULL CHECK (summary IN ('attribute', 'group', 'difference')),
    feature_key      VARCHAR NOT NULL,
    variation_value  VARCHAR NOT NULL,
    ethnicity        VARCHAR NOT NULL,      -- the base face's (from the image set)
    gender           VARCHAR NOT NULL,
    estimate         DOUBLE,                -- mean per-face ITA° change
    ci_low           DOUBLE,                -- NULL: a cell of one face
    ci_high          DOUBLE,
    n_edits          BIGINT NOT NULL,
    n_faces          BIGINT NOT NULL,
    PRIMARY KEY (summary, feature_key, variation_value, ethnicity, gender)
);
-- The level of ci_low/ci_high (cueshift.schemas.audit_skin.SKIN_TONE_LEVEL unless the audit chose
-- another). Databases made before it existed get it here, NULL: their intervals are at 95 %.
ALTER TABLE audit_skin_tone ADD COLUMN IF NOT EXISTS confidence_level DOUBLE;
