//! Conformance tests for the OnePath specification (see `tests/`).
