//! Makes a data-set test that cannot run visible as *ignored* in cargo's summary: sets
//! `cfg(no_levels)` / `cfg(no_movingai)` when `ONEPATH_DATA` is unset or lacks `levels/` /
//! `movingai/`, and the data-set tests carry `#[cfg_attr(no_levels, ignore = "needs
//! ONEPATH_DATA ...")]`. `cargo xtask ci` fails when the data is there and such a test was
//! still ignored. Nothing of the library itself depends on these cfgs.

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-env-changed=ONEPATH_DATA");
    println!("cargo::rustc-check-cfg=cfg(no_levels)");
    println!("cargo::rustc-check-cfg=cfg(no_movingai)");
    let data = std::env::var_os("ONEPATH_DATA");
    let has = |sub: &str| {
        data.as_ref()
            .is_some_and(|d| Path::new(d).join(sub).is_dir())
    };
    if !has("levels") {
        println!("cargo::rustc-cfg=no_levels");
    }
    if !has("movingai") {
        println!("cargo::rustc-cfg=no_movingai");
    }
}
