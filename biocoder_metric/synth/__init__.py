"""Harness synthesis: make golden-only and newly built tasks executable (docs/synthesis.md)."""
