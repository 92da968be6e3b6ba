//! The normative rules of this crate, as the repository's `docs/` writes them (the same
//! text, included here so that readers of the API documentation see it).

/// `docs/build3d-spans.md`
#[cfg_attr(not(doctest), doc = include_str!("../docs/build3d-spans.md"))]
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]
pub mod build3d_spans {}

/// `docs/build3d-regions.md`
#[cfg_attr(not(doctest), doc = include_str!("../docs/build3d-regions.md"))]
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]
pub mod build3d_regions {}

/// `docs/build3d-polys.md`
#[cfg_attr(not(doctest), doc = include_str!("../docs/build3d-polys.md"))]
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]
pub mod build3d_polys {}
