//! Little-endian byte cursor and writer shared by every OnePath reader and writer.
//!
//! Every read names the field it reads, so a short or broken input fails with
//! "malformed polygon count: need 4 bytes, 2 remain" rather than a bare end-of-input.
//! Counts read from the bytes are checked against what remains before anything is
//! allocated ([`ByteReader::count`]); all size arithmetic is checked.

use crate::error::FormatError;

/// A cursor over untrusted bytes. Never panics.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

macro_rules! read_le {
    ($name:ident, $ty:ty, $n:expr) => {
        #[doc = concat!("Reads a little-endian `", stringify!($ty), "` named `field`.")]
        pub fn $name(&mut self, field: &str) -> Result<$ty, FormatError> {
            let b = self.array::<$n>(field)?;
            Ok(<$ty>::from_le_bytes(b))
        }
    };
}

macro_rules! read_le_array {
    ($name:ident, $ty:ty, $n:expr) => {
        #[doc = concat!("Reads `count` little-endian `", stringify!($ty), "` named `field` in one \
            bounds-checked step ([`ByteReader::chunks`]); allocates only after the check.")]
        pub fn $name(&mut self, count: usize, field: &str) -> Result<Vec<$ty>, FormatError> {
            Ok(self
                .chunks::<$n>(count, field)?
                .map(<$ty>::from_le_bytes)
                .collect())
        }
    };
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Takes the next `len` bytes, named `field`.
    pub fn bytes(&mut self, len: usize, field: &str) -> Result<&'a [u8], FormatError> {
        if len > self.remaining() {
            return Err(FormatError::malformed(
                field,
                format!("need {len} bytes, {} remain", self.remaining()),
            ));
        }
        let out = &self.bytes[self.pos..self.pos + len];
        self.pos += len;
        Ok(out)
    }

    /// Takes the next `N` bytes as an array, named `field`.
    pub fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N], FormatError> {
        let s = self.bytes(N, field)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    read_le!(u8, u8, 1);
    read_le!(u16, u16, 2);
    read_le!(u32, u32, 4);
    read_le!(u64, u64, 8);
    read_le!(i32, i32, 4);
    read_le!(i64, i64, 8);
    read_le!(f32, f32, 4);
    read_le!(f64, f64, 8);

    /// Reads a `u8` that must be 0 or 1.
    pub fn bool_u8(&mut self, field: &str) -> Result<bool, FormatError> {
        match self.u8(field)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(FormatError::malformed(field, format!("{v} is not 0 or 1"))),
        }
    }

    /// Reads a `u32` count of items of `item_size` bytes each and checks, with checked
    /// arithmetic, that that many items fit in the bytes that remain. Returns the count.
    pub fn count(&mut self, field: &str, item_size: usize) -> Result<usize, FormatError> {
        let n = self.u32(field)? as usize;
        self.check_fits(field, n, item_size)?;
        Ok(n)
    }

    /// Checks that `count` items of `item_size` bytes fit in the remaining bytes.
    pub fn check_fits(
        &self,
        field: &str,
        count: usize,
        item_size: usize,
    ) -> Result<(), FormatError> {
        match count.checked_mul(item_size) {
            Some(total) if total <= self.remaining() => Ok(()),
            _ => Err(FormatError::malformed(
                field,
                format!(
                    "{count} items of {item_size} bytes do not fit in the {} bytes that remain",
                    self.remaining()
                ),
            )),
        }
    }

    /// A sub-reader over a `u32` length-prefixed body; the outer cursor moves past it.
    pub fn length_prefixed(&mut self, field: &str) -> Result<ByteReader<'a>, FormatError> {
        self.length_prefixed_bytes(field, field)
            .map(ByteReader::new)
    }

    /// A `u32` length named `length_field`, then that many bytes named `field`.
    pub fn length_prefixed_bytes(
        &mut self,
        length_field: &str,
        field: &str,
    ) -> Result<&'a [u8], FormatError> {
        let len = self.u32(length_field)? as usize;
        self.bytes(len, field)
    }

    /// Takes the next `count` items of `N` bytes each, named `field`, as one slice: one
    /// checked multiply and one bounds check for the whole array (so `count` never drives
    /// an allocation the bytes cannot back). The items are raw bytes; each typed reader
    /// below decodes them little-endian, so the values are the same on every platform.
    pub fn chunks<const N: usize>(
        &mut self,
        count: usize,
        field: &str,
    ) -> Result<impl ExactSizeIterator<Item = [u8; N]> + 'a, FormatError> {
        const { assert!(N > 0, "items of 0 bytes") };
        let Some(len) = count.checked_mul(N) else {
            return Err(FormatError::malformed(
                field,
                format!("{count} items of {N} bytes overflow the address space"),
            ));
        };
        let bytes = self.bytes(len, field)?;
        Ok(bytes.chunks_exact(N).map(|c| {
            let mut item = [0u8; N];
            item.copy_from_slice(c);
            item
        }))
    }

    read_le_array!(u16s, u16, 2);
    read_le_array!(u32s, u32, 4);
    read_le_array!(f32s, f32, 4);

    /// Reads `count` little-endian `[f32; 3]` (x, y, z) named `field`, as
    /// [`ByteReader::u32s`] does.
    pub fn vec3s(&mut self, count: usize, field: &str) -> Result<Vec<[f32; 3]>, FormatError> {
        Ok(self
            .chunks::<12>(count, field)?
            .map(|b| {
                let c = |k: usize| f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
                [c(0), c(4), c(8)]
            })
            .collect())
    }

    /// Fails when bytes remain (trailing bytes are always an error in OnePath layouts).
    pub fn expect_end(&self, what: &str) -> Result<(), FormatError> {
        if self.remaining() != 0 {
            return Err(FormatError::malformed(
                what,
                format!("{} trailing bytes", self.remaining()),
            ));
        }
        Ok(())
    }

    /// Reads the 8-byte header every navmesh layout opens with: the 4-byte `magic`, a u16
    /// version that must equal `version` (else [`FormatError::Version`] with found and
    /// expected), and u16 flags that must be 0 (no flag is defined). `what` names the layout
    /// ("ONPT", "ONPM", "ONPS") in every error.
    pub fn header(
        &mut self,
        magic: &[u8; 4],
        what: &'static str,
        version: u16,
    ) -> Result<(), FormatError> {
        self.magic(magic, &format!("{what} magic"))?;
        let found = self.u16(&format!("{what} version"))?;
        if found != version {
            return Err(FormatError::Version {
                what,
                found,
                expected: version,
            });
        }
        let flags = self.u16(&format!("{what} flags"))?;
        if flags != 0 {
            return Err(FormatError::malformed(
                format!("{what} flags"),
                format!("bits {flags:#06x} set (no flag is defined in version {version})"),
            ));
        }
        Ok(())
    }

    /// Reads the 4-byte magic and fails unless it equals `magic`.
    pub fn magic(&mut self, magic: &[u8; 4], what: &str) -> Result<(), FormatError> {
        let found = self.array::<4>(what)?;
        if &found != magic {
            return Err(FormatError::malformed(
                what,
                format!(
                    "bad magic {:02X} {:02X} {:02X} {:02X} (expected {})",
                    found[0],
                    found[1],
                    found[2],
                    found[3],
                    String::from_utf8_lossy(magic)
                ),
            ));
        }
        Ok(())
    }
}

/// An infallible little-endian writer.
#[derive(Debug, Clone, Default)]
pub struct ByteWriter {
    buf: Vec<u8>,
}

macro_rules! write_le {
    ($name:ident, $ty:ty) => {
        #[doc = concat!("Appends a little-endian `", stringify!($ty), "`.")]
        pub fn $name(&mut self, v: $ty) {
            self.buf.extend_from_slice(&v.to_le_bytes());
        }
    };
}

impl ByteWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `n` bytes (writers compute their size first).
    pub fn with_capacity(n: usize) -> Self {
        ByteWriter {
            buf: Vec::with_capacity(n),
        }
    }

    write_le!(u8, u8);
    write_le!(u16, u16);
    write_le!(u32, u32);
    write_le!(u64, u64);
    write_le!(i32, i32);
    write_le!(i64, i64);
    write_le!(f32, f32);
    write_le!(f64, f64);

    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes written.
    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }

    /// The bytes written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_read_names_the_field() {
        let mut r = ByteReader::new(&[1, 2]);
        let e = r.u32("polygon count").unwrap_err();
        assert_eq!(
            e,
            FormatError::malformed("polygon count", "need 4 bytes, 2 remain")
        );
    }

    #[test]
    fn huge_count_is_rejected_before_allocating() {
        let mut r = ByteReader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0]);
        let e = r.count("slot count", 5).unwrap_err();
        assert!(matches!(e, FormatError::Malformed { ref at, .. } if at == "slot count"));
    }

    #[test]
    fn bulk_reads_decode_little_endian_whatever_the_machine() {
        // The values follow from the bytes alone (explicit little-endian decoding), so a
        // big-endian machine reads the same numbers.
        let bytes = [
            0x01, 0x02, 0x03, 0x04, // u16s: 0x0201, 0x0403
            0x78, 0x56, 0x34, 0x12, // u32s: 0x12345678
            0x00, 0x00, 0x80, 0x3F, // f32s: 1.0
            0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40,
            0xC0, // -0, 2, -3
        ];
        let mut r = ByteReader::new(&bytes);
        assert_eq!(r.u16s(2, "a").unwrap(), vec![0x0201, 0x0403]);
        assert_eq!(r.u32s(1, "b").unwrap(), vec![0x1234_5678]);
        assert_eq!(r.f32s(1, "c").unwrap(), vec![1.0]);
        let v = r.vec3s(1, "d").unwrap();
        assert_eq!(
            v[0].map(f32::to_bits),
            [(-0.0f32).to_bits(), 2.0f32.to_bits(), (-3.0f32).to_bits()]
        );
        r.expect_end("x").unwrap();
        // Zero items read nothing and succeed at the end.
        assert_eq!(r.u32s(0, "e").unwrap(), Vec::<u32>::new());
    }

    #[test]
    fn bulk_reads_equal_one_read_per_item() {
        let mut w = ByteWriter::new();
        for k in 0..9u32 {
            w.u32(k.wrapping_mul(0x9E37_79B9));
        }
        let bytes = w.into_vec();
        let mut one = ByteReader::new(&bytes);
        let each: Vec<u32> = (0..9).map(|_| one.u32("x").unwrap()).collect();
        let mut bulk = ByteReader::new(&bytes);
        assert_eq!(bulk.u32s(9, "x").unwrap(), each);
        let mut chunks = ByteReader::new(&bytes);
        let c: Vec<[u8; 12]> = chunks.chunks::<12>(3, "x").unwrap().collect();
        assert_eq!(c.concat(), bytes);
        assert!(chunks.is_empty());
    }

    #[test]
    fn a_bulk_read_past_the_end_names_the_field_and_consumes_nothing() {
        let mut r = ByteReader::new(&[0; 7]);
        assert_eq!(
            r.u16s(4, "polygon flags").unwrap_err(),
            FormatError::malformed("polygon flags", "need 8 bytes, 7 remain")
        );
        assert_eq!(r.position(), 0);
        assert_eq!(r.u16s(3, "polygon flags").unwrap(), vec![0; 3]);
    }

    #[test]
    fn a_bulk_count_that_overflows_is_an_error_before_allocating() {
        let mut r = ByteReader::new(&[0; 16]);
        assert_eq!(
            r.u32s(usize::MAX / 2, "edge neighbours").unwrap_err(),
            FormatError::malformed(
                "edge neighbours",
                format!(
                    "{} items of 4 bytes overflow the address space",
                    usize::MAX / 2
                )
            )
        );
        assert!(matches!(
            r.vec3s(usize::MAX / 4, "vertices").unwrap_err(),
            FormatError::Malformed { ref at, .. } if at == "vertices"
        ));
        assert_eq!(r.position(), 0);
    }

    #[test]
    fn length_prefixed_bytes_name_the_length_then_the_body() {
        let mut r = ByteReader::new(&[2, 0]);
        assert_eq!(
            r.length_prefixed_bytes("slot 0: tile length", "slot 0: tile")
                .unwrap_err(),
            FormatError::malformed("slot 0: tile length", "need 4 bytes, 2 remain")
        );
        let mut r = ByteReader::new(&[3, 0, 0, 0, 9, 8]);
        assert_eq!(
            r.length_prefixed_bytes("slot 0: tile length", "slot 0: tile")
                .unwrap_err(),
            FormatError::malformed("slot 0: tile", "need 3 bytes, 2 remain")
        );
        let mut r = ByteReader::new(&[2, 0, 0, 0, 9, 8]);
        assert_eq!(r.length_prefixed_bytes("l", "b").unwrap(), &[9, 8]);
        assert!(r.is_empty());
    }

    #[test]
    fn round_trip_little_endian() {
        let mut w = ByteWriter::new();
        w.u16(0x0102);
        w.f64(-0.0);
        w.i32(-5);
        let v = w.into_vec();
        assert_eq!(&v[..2], &[0x02, 0x01]);
        let mut r = ByteReader::new(&v);
        assert_eq!(r.u16("a").unwrap(), 0x0102);
        assert_eq!(r.f64("b").unwrap().to_bits(), (-0.0f64).to_bits());
        assert_eq!(r.i32("c").unwrap(), -5);
        r.expect_end("x").unwrap();
    }
}
