//! Fuzzes the settings decoder (the ONNM settings body): any bytes give a typed error or
//! settings whose encoding is the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onepath_format::{decode_settings, encode_settings};

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = decode_settings(data) {
        assert_eq!(encode_settings(&s), data);
        let _ = s.to_params();
    }
});
