"""Verification as a service: a warm engine session (``verifier``) behind HTTP (``app``), for RL trainers.

Nothing here judges anything itself: every verdict is the engine's ``Session.run_sample``, the call
``biocoder evaluate`` makes, so the accounting and clean-state guarantees are the CLI's.
"""
