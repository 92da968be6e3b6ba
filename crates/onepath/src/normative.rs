//! The normative rules of this crate, as the repository's `docs/` writes them (the same
//! text, included here so that readers of the API documentation see it). The envelopes
//! ONNM and ONNW are in "ONNM envelope".

/// `docs/navmesh-format.md`
#[cfg_attr(not(doctest), doc = include_str!("../docs/navmesh-format.md"))]
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]
pub mod navmesh_format {}
