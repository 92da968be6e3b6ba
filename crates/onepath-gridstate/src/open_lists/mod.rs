//! The open lists and per-node buffers the searches share (crate-private).

pub(crate) mod buffers;
pub(crate) mod heap;
pub(crate) mod paged;
pub(crate) mod quad;
pub(crate) mod ring;
