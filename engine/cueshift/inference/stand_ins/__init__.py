"""Stand-ins for real models: the one clearly named place for everything that answers like a
model without being one. Nothing here is used on the loading path of a real checkpoint.

- :mod:`~cueshift.inference.stand_ins.simulated`: the simulated judge (``backend = "simulated"``),
  answers drawn from a planted logistic model whose truth is known.
- :mod:`~cueshift.inference.stand_ins.simulated_designs` (with ``simulated_design_settings``,
  ``simulated_design_latents``): the simulated judge of the further designs
  (``backend = "simulated-designs"``: pairwise choices, ratings, latent impressions).
- :mod:`~cueshift.inference.stand_ins.tiny` (with ``tiny_archs``, ``tiny_qwen``,
  ``tiny_siglip``, ``tiny_parts``, ``tiny_processing``): tiny randomly initialised
  image-text-to-text models of the real architecture classes, saved as checkpoint
  directories the transformers backend loads like any other
  (``python -m cueshift.inference.stand_ins.tiny <arch> <dir>``).
- :mod:`~cueshift.inference.stand_ins.tiny_clip`: a tiny random CLIP model
  (checkpoint ``cueshift:tiny-random-clip``, or a directory saved by ``save_tiny_clip``).
- :mod:`~cueshift.inference.stand_ins.checkpoints`: ``resolve_checkpoint`` turns a stand-in id
  (``cueshift:tiny-random-clip`` and its seed) into a checkpoint directory, written once
  under ``.cueshift-cache/stand-ins/`` (atomically, safe for concurrent processes); the
  backend then loads it with the ordinary ``from_pretrained``.

Their answers mean nothing about faces: they prove the pipeline and the statistics
(planted effects), not a finding.
"""
