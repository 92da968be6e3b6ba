//! The normative rules of this crate, as the repository's `docs/` writes them (the same
//! text, included here so that readers of the API documentation see it).

/// `docs/crowd.md`
#[cfg_attr(not(doctest), doc = include_str!("../docs/crowd.md"))]
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]
pub mod crowd {}

/// `docs/agent-records.md`
#[cfg_attr(not(doctest), doc = include_str!("../docs/agent-records.md"))]
#[allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]
pub mod agent_records {}
