//! # onepath-format
//!
//! The bytes and rules of OnePath's tiled navmesh format, version 2 (frozen): mesh
//! parameters and their 68-byte block, the build fingerprint, polygon and tile references,
//! tiles ([`NavTile`]) with exact validation, and the byte cursor ([`bytes::ByteReader`])
//! and error family ([`FormatError`]) that every OnePath reader shares.
//!
//! ## Invariants
//! - Readers never panic and never index out of range on any input: every count is checked
//!   against the bytes that remain, with checked arithmetic, before anything is allocated;
//!   every failure is a [`FormatError`] naming the field, polygon, edge or array.
//! - A [`NavTile`] is valid by construction (created only through validation) and immutable.
//! - Writers are canonical: one value, one encoding, on every platform.
//! - Only IEEE-exact arithmetic reaches bytes; orientation tests are exact.
//!
//! ## Example
//! ```
//! use onepath_format::{NavMeshParams, PolyRef};
//!
//! let params = NavMeshParams::new([0.0, 0.0, 0.0], 32.0, 0.25, 6);
//! params.validate().unwrap();
//! let block = params.to_block();
//! assert_eq!(block.len(), 68);
//! let r = PolyRef::new(1, 0, 5).unwrap();
//! assert_eq!((r.salt(), r.slot(), r.poly()), (1, 0, 5));
//! ```
#![forbid(unsafe_code)]

pub mod assembler;
pub mod bytes;
pub mod content_id;
pub mod error;
pub mod onpt;
pub mod orient;
pub mod params;
pub mod polyref;
pub mod settings;
pub mod tile;
mod validate;

pub use assembler::{NavTileAssembler, DEFAULT_AREA, DEFAULT_FLAGS};
pub use content_id::ContentId;
pub use error::{CoordinateError, FormatError, FormatErrorKind};
pub use onpt::{onpt_len, ONPT_HEADER_LEN, ONPT_MAGIC};
pub use orient::orient2d_exact;
pub use params::{Fingerprint, NavMeshParams, COORD_BOUND, FORMAT_VERSION, PARAMS_BLOCK_LEN};
pub use polyref::{next_salt, PolyRef, TileRef, MAX_SALT, MAX_SLOTS};
pub use settings::{
    decode_settings, encode_settings, NavSettings, OffMeshLinkDefinition, Partition,
};
pub use tile::{
    DetailMesh, DetailTriangle, NavTile, NavTileData, OffMeshLinkSlot, TileGeometry, MAX_AREA,
    MAX_LAYER, NO_PORTAL,
};
pub use validate::{MAX_TILE_POLYS, MAX_TILE_VERTICES};
