//! Fuzzes what `onepath info` / `verify` read (`onepath-cli`'s `load`: its ONPT and ONTK
//! walks, the OPGS kind, and every library reader behind them): any bytes give an error, or
//! a file `info` describes and whose writer gives exactly its bytes; never a panic. Each
//! input is read alone and with a mesh (the parameters a lone tile needs).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use onepath_cli::load::{self, Context};
use onepath_cli::{info, verify};
use onepath_mesh::TiledNavMesh;

fn mesh() -> &'static TiledNavMesh {
    static MESH: OnceLock<TiledNavMesh> = OnceLock::new();
    MESH.get_or_init(onepath_mesh::fixtures::bridge_and_building)
}

fn check(bytes: &[u8], ctx: &Context) {
    let Ok((kind, loaded)) = load::load(bytes, ctx) else {
        return;
    };
    let report = info::describe("fuzz", bytes, kind, &loaded);
    assert_eq!(report.bytes, bytes.len());
    if let Ok(v) = verify::check("fuzz", bytes, kind, &loaded) {
        assert!(v.canonical, "an accepted {kind:?} file is canonical");
    }
}

fuzz_target!(|data: &[u8]| {
    check(data, &Context::default());
    check(
        data,
        &Context {
            mesh: Some(mesh().clone()),
            class_radius: None,
        },
    );
});
