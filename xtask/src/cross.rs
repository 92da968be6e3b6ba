//! `cargo xtask cross-matrix [--arch aarch64,i686,s390x] [--qemu DIR]`: the hash matrix on
//! other machines.
//!
//! Builds the hash-matrix runner (this very crate, whose `hash-matrix` task is what
//! `cargo xtask hash-matrix` runs) for each foreign architecture with Debian's packages only,
//! runs it under `qemu-user-static`, and compares every scenario with the same committed
//! fixtures (`fixtures/hash-matrix/`). The runner itself runs each parallel scenario at 1, 2
//! and 4 threads and requires equal hashes, exactly as on the host.
//!
//! - Compiler: Debian's `rustc-web` and `cargo-web` (`/usr/bin/rustc`, `/usr/bin/cargo`), at
//!   the newest version whose foreign standard library `libstd-rust-web-dev:<arch>` is in the
//!   package lists for every requested architecture (the two must be the very same build).
//! - Standard library: `libstd-rust-web-dev:<arch>` (after `dpkg --add-architecture <arch>`),
//!   fetched with `apt-get download` and unpacked into a sysroot of our own under
//!   `target/cross/`, not installed: installing it would pull the foreign LLVM and a dozen
//!   foreign libraries whose `Multi-Arch: same` versions must equal the host's, which a
//!   mirror without that architecture's security updates cannot satisfy (s390x here). Only
//!   its rlibs are needed to link a static program.
//! - Linker: `gcc-<arch>-linux-gnu` with `libc6-dev-<arch>-cross`; the runner is linked
//!   statically (`-C target-feature=+crt-static`): dynamically linked threaded programs hang
//!   under qemu-user on these machines. The binary is checked to be of the architecture and
//!   to have no program interpreter before it runs.
//! - Emulator: `qemu-<arch>-static`, called directly (no binfmt registration needed), or the
//!   `qemu-<arch>` of `--qemu DIR`. Debian 12's qemu 7.2 computes s390x's MDEBR (a product
//!   of two f32 widened to f64, `f64::from(a) * f64::from(b)`) wrongly, so s390x's
//!   `build3d` scenarios differ under it; qemu 10 (bookworm-backports) computes it right and
//!   every scenario is equal (`docs/perf/cross-matrix.md`).
//!
//! Missing packages are installed with `apt-get` (as root); what is already there at the
//! chosen version is left alone, so a second run installs nothing. Where `apt-get` does not
//! exist the task prints why and skips (success); everywhere else it runs, and a build
//! failure, a hang (per-scenario deadline) or a hash that differs fails it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::scenarios::SCENARIOS;

/// One foreign architecture and the names each tool gives it.
#[derive(Debug, PartialEq, Eq)]
struct Arch {
    /// The name on the command line (`--arch`), Rust's first triple component.
    name: &'static str,
    /// Debian's architecture name (`dpkg --add-architecture`, `pkg:<arch>`).
    deb: &'static str,
    /// The Rust target triple.
    triple: &'static str,
    /// The GNU triple of the cross gcc (`<gnu>-gcc`, `gcc-<gnu>`).
    gnu: &'static str,
    /// Debian's name in `libc6-dev-<x>-cross` and `qemu-<x>-static`.
    libc_cross: &'static str,
    qemu: &'static str,
    /// ELF `e_machine` of its programs.
    elf_machine: u16,
    /// Byte order of its ELF files.
    big_endian: bool,
}

const ARCHES: &[Arch] = &[
    Arch {
        name: "aarch64",
        deb: "arm64",
        triple: "aarch64-unknown-linux-gnu",
        gnu: "aarch64-linux-gnu",
        libc_cross: "arm64",
        qemu: "aarch64",
        elf_machine: 183,
        big_endian: false,
    },
    Arch {
        name: "i686",
        deb: "i386",
        triple: "i686-unknown-linux-gnu",
        gnu: "i686-linux-gnu",
        libc_cross: "i386",
        qemu: "i386",
        elf_machine: 3,
        big_endian: false,
    },
    Arch {
        name: "s390x",
        deb: "s390x",
        triple: "s390x-unknown-linux-gnu",
        gnu: "s390x-linux-gnu",
        libc_cross: "s390x",
        qemu: "s390x",
        elf_machine: 22,
        big_endian: true,
    },
];

/// How long one emulated scenario may take before it counts as hung (the slowest took
/// under a minute when this was written).
const SCENARIO_DEADLINE: Duration = Duration::from_secs(15 * 60);

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let (arches, qemu_dir) = parse_args(args)?;
    if !tool_exists("apt-get") || !tool_exists("dpkg") || !tool_exists("apt-cache") {
        println!(
            "cross-matrix: SKIPPED: apt-get is not available on this machine. The run needs \
             Debian's packages (rustc-web, libstd-rust-web-dev:<arch>, gcc-<arch>-linux-gnu, \
             qemu-user-static); see the README's \"Other machines\" section."
        );
        return Ok(());
    }
    let host = capture("dpkg", &["--print-architecture"])?;
    if host.trim() != "amd64" {
        return Err(format!(
            "cross-matrix runs on an amd64 (x86_64) Debian host; this one is {:?}",
            host.trim()
        ));
    }
    let total = Instant::now();
    let names: Vec<&str> = arches.iter().map(|a| a.name).collect();
    println!("cross-matrix: architectures {}", names.join(", "));

    let mut lists_fresh = add_architectures(&arches)?;
    let mut version = choose_version(&arches)?;
    let mut missing = missing_host_packages(&arches, &version)?;
    if !missing.is_empty() && !lists_fresh {
        // What is missing comes from the network: bring the lists up to date first, and
        // choose again from them.
        apt_update()?;
        lists_fresh = true;
        version = choose_version(&arches)?;
        missing = missing_host_packages(&arches, &version)?;
    }
    println!("cross-matrix: Debian rustc-web {version}");
    if !missing.is_empty() {
        install(&missing)?;
    }
    let root = cross_dir().join(format!("rustc-web-{}", upstream(&version)));
    let sysroot = root.join("sysroot");
    for a in &arches {
        ensure_std(a, &version, &sysroot, lists_fresh)?;
    }
    check_compiler(&version)?;
    let t = Instant::now();
    let target_dir = root.join("build");
    build(&arches, &sysroot, &target_dir)?;
    println!(
        "cross-matrix: built the runner for {} in {:.0} s",
        names.join(", "),
        t.elapsed().as_secs_f64()
    );

    let logs = root.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
    let mut failures = Vec::new();
    for a in &arches {
        let bin = target_dir.join(a.triple).join("release").join("xtask");
        check_binary(a, &bin)?;
        let qemu = qemu_program(a, qemu_dir.as_deref())?;
        let qemu_version = capture(&qemu.to_string_lossy(), &["--version"])?;
        println!(
            "cross-matrix: {} under {}",
            a.name,
            qemu_version.lines().next().unwrap_or("qemu").trim()
        );
        let t = Instant::now();
        for s in SCENARIOS {
            let log = logs.join(format!("{}-{}.txt", a.name, s.name.replace('/', "-")));
            match run_scenario(&qemu, &bin, s.name, &log)? {
                Outcome::Equal => println!("cross-matrix: {} {} equal", a.name, s.name),
                Outcome::Differs(why) => {
                    println!("cross-matrix: {} {} DIFFERS", a.name, s.name);
                    failures.push(format!("{} {}: {why}", a.name, s.name));
                }
            }
        }
        println!(
            "cross-matrix: {} ran {} scenarios under {} in {:.0} s",
            a.name,
            SCENARIOS.len(),
            qemu.display(),
            t.elapsed().as_secs_f64()
        );
    }
    println!(
        "cross-matrix: {:.0} s in all",
        total.elapsed().as_secs_f64()
    );
    if failures.is_empty() {
        println!(
            "cross-matrix: {} scenarios on {}, all equal to fixtures/hash-matrix",
            SCENARIOS.len(),
            names.join(", ")
        );
        Ok(())
    } else {
        for f in &failures {
            eprintln!("cross-matrix: FAIL {f}");
        }
        Err(format!(
            "{} scenario runs differ from fixtures/hash-matrix",
            failures.len()
        ))
    }
}

/// `--arch a,b` (default: every known architecture), in the order given, without repeats.
/// `--qemu DIR`: a folder with other qemu-user programs (`qemu-<arch>-static` or
/// `qemu-<arch>`) to run instead of the installed `qemu-user-static`.
fn parse_args(args: &[String]) -> Result<(Vec<&'static Arch>, Option<PathBuf>), String> {
    let known = || ARCHES.iter().map(|a| a.name).collect::<Vec<_>>().join(", ");
    let mut list: Option<&str> = None;
    let mut qemu_dir = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--arch" => {
                let v = it
                    .next()
                    .ok_or_else(|| format!("--arch needs a list of architectures ({})", known()))?;
                list = Some(v);
            }
            "--qemu" => {
                let v = it
                    .next()
                    .ok_or_else(|| "--qemu needs a folder of qemu-user programs".to_string())?;
                qemu_dir = Some(PathBuf::from(v));
            }
            other => {
                return Err(format!(
                    "cross-matrix: unknown argument {other:?} (usage: cross-matrix [--arch {}] \
                     [--qemu DIR])",
                    known().replace(", ", ",")
                ))
            }
        }
    }
    let Some(list) = list else {
        return Ok((ARCHES.iter().collect(), qemu_dir));
    };
    let mut out: Vec<&'static Arch> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let a = ARCHES
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| format!("--arch: unknown architecture {name:?} (known: {})", known()))?;
        if !out.contains(&a) {
            out.push(a);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "--arch: no architecture named (known: {})",
            known()
        ));
    }
    Ok((out, qemu_dir))
}

/// The emulator of `a`: the installed `qemu-<arch>-static`, or the one in `--qemu DIR`.
fn qemu_program(a: &Arch, dir: Option<&Path>) -> Result<PathBuf, String> {
    let name = format!("qemu-{}-static", a.qemu);
    let Some(dir) = dir else {
        return Ok(PathBuf::from(name));
    };
    // The scenarios run from the workspace root: a relative folder must not move with it.
    let dir = std::fs::canonicalize(dir).map_err(|e| format!("--qemu {}: {e}", dir.display()))?;
    [dir.join(&name), dir.join(format!("qemu-{}", a.qemu))]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "--qemu {}: has neither {name} nor qemu-{}",
                dir.display(),
                a.qemu
            )
        })
}

/// `target/cross` of this workspace (or of `CARGO_TARGET_DIR`, where the caller set one).
fn cross_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("target"))
        .join("cross")
}

/// The upstream part of a Debian version: `1.85.0` of `1.85.0+dfsg3-1~deb12u3`.
fn upstream(version: &str) -> &str {
    let end = version.find(['+', '-', '~']).unwrap_or(version.len());
    &version[..end]
}

fn tool_exists(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// Runs a command and returns its standard output; a failure names the command and what it
/// printed on standard error.
fn capture(program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{program} {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout)
        .map_err(|_| format!("{program} {}: output is not UTF-8", args.join(" ")))
}

/// Runs an apt or dpkg command quietly; on failure its output is shown in full.
fn quiet(program: &str, args: &[&str], cwd: Option<&Path>) -> Result<(), String> {
    eprintln!("$ {program} {}", args.join(" "));
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{program} {} failed ({}):\n{}{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn is_root() -> bool {
    capture("id", &["-u"]).is_ok_and(|u| u.trim() == "0")
}

fn need_root(what: &str) -> Result<(), String> {
    if is_root() {
        Ok(())
    } else {
        Err(format!(
            "cross-matrix needs root to {what} (apt-get and dpkg change the system); run it as \
             root, or do that step by hand as the README's \"Other machines\" section shows"
        ))
    }
}

/// Adds each requested foreign architecture to dpkg (once) and, when one was added, updates
/// the package lists. Returns whether the lists were updated.
fn add_architectures(arches: &[&Arch]) -> Result<bool, String> {
    let have = capture("dpkg", &["--print-foreign-architectures"])?;
    let have: Vec<&str> = have.split_whitespace().collect();
    let mut added = false;
    for a in arches {
        if !have.contains(&a.deb) {
            need_root(&format!("add the {} architecture", a.deb))?;
            quiet("dpkg", &["--add-architecture", a.deb], None)?;
            added = true;
        }
    }
    if added {
        apt_update()?;
    }
    Ok(added)
}

fn apt_update() -> Result<(), String> {
    need_root("update the package lists")?;
    quiet("apt-get", &["update", "-qq"], None)
}

/// The versions the package lists offer for `package` (`apt-cache madison`), newest first.
fn offered(package: &str) -> Result<Vec<String>, String> {
    let out = capture("apt-cache", &["madison", package])?;
    Ok(parse_madison(&out))
}

fn parse_madison(out: &str) -> Vec<String> {
    let mut versions: Vec<String> = Vec::new();
    for line in out.lines() {
        let mut fields = line.split('|').map(str::trim);
        if let (Some(_), Some(v)) = (fields.next(), fields.next()) {
            if !v.is_empty() && !versions.iter().any(|x| x == v) {
                versions.push(v.to_string());
            }
        }
    }
    versions
}

/// Debian's order of versions (`dpkg --compare-versions`).
fn debian_newer(a: &str, b: &str) -> bool {
    Command::new("dpkg")
        .args(["--compare-versions", a, "gt", b])
        .status()
        .is_ok_and(|s| s.success())
}

/// The newest version present in every list, by `newer`.
fn newest_common(lists: &[Vec<String>], newer: impl Fn(&str, &str) -> bool) -> Option<String> {
    let (first, rest) = lists.split_first()?;
    let mut best: Option<&String> = None;
    for v in first {
        if rest.iter().all(|l| l.contains(v)) && best.is_none_or(|b| newer(v, b)) {
            best = Some(v);
        }
    }
    best.cloned()
}

/// The newest rustc-web whose compiler, cargo and every requested foreign standard library
/// the lists offer at the same version.
fn choose_version(arches: &[&Arch]) -> Result<String, String> {
    let mut lists = vec![offered("rustc-web")?, offered("cargo-web")?];
    for a in arches {
        lists.push(offered(&format!("libstd-rust-web-dev:{}", a.deb))?);
    }
    newest_common(&lists, debian_newer).ok_or_else(|| {
        let names: Vec<String> = arches
            .iter()
            .map(|a| format!("libstd-rust-web-dev:{}", a.deb))
            .collect();
        format!(
            "the package lists offer no version of rustc-web that cargo-web and {} share \
             (apt-cache madison shows what there is)",
            names.join(", ")
        )
    })
}

/// Host packages (`name=version` where a version matters) not installed at that version.
fn missing_host_packages(arches: &[&Arch], version: &str) -> Result<Vec<String>, String> {
    let mut wanted: Vec<(String, Option<&str>)> = vec![
        ("rustc-web".into(), Some(version)),
        ("cargo-web".into(), Some(version)),
        ("libstd-rust-web-dev".into(), Some(version)),
        ("qemu-user-static".into(), None),
    ];
    for a in arches {
        wanted.push((format!("gcc-{}", a.gnu), None));
        wanted.push((format!("libc6-dev-{}-cross", a.libc_cross), None));
    }
    let names: Vec<&str> = wanted.iter().map(|(n, _)| n.as_str()).collect();
    let mut args = vec!["-W", "-f", "${Package} ${Version} ${db:Status-Abbrev}\\n"];
    args.extend(&names);
    // dpkg-query fails when one name is unknown to it, yet still lists the others.
    let out = Command::new("dpkg-query")
        .args(&args)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run dpkg-query: {e}"))?;
    let listed = String::from_utf8_lossy(&out.stdout);
    let installed: Vec<(&str, &str)> = listed
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (p, v, s) = (f.next()?, f.next()?, f.next()?);
            (s == "ii").then_some((p, v))
        })
        .collect();
    Ok(wanted
        .iter()
        .filter(|(n, v)| {
            !installed
                .iter()
                .any(|(p, iv)| p == n && v.is_none_or(|v| v == *iv))
        })
        .map(|(n, v)| match v {
            Some(v) => format!("{n}={v}"),
            None => n.clone(),
        })
        .collect())
}

fn install(packages: &[String]) -> Result<(), String> {
    need_root(&format!("install {}", packages.join(" ")))?;
    let t = Instant::now();
    let mut args = vec![
        "install",
        "-y",
        "-qq",
        "--no-install-recommends",
        // Another requested set of architectures may have chosen another rustc-web before.
        "--allow-downgrades",
    ];
    args.extend(packages.iter().map(String::as_str));
    quiet("apt-get", &args, None)?;
    println!(
        "cross-matrix: installed {} in {:.0} s",
        packages.join(" "),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Unpacks `libstd-rust-web-dev:<arch>` at `version` into `sysroot` unless it is there.
fn ensure_std(a: &Arch, version: &str, sysroot: &Path, lists_fresh: bool) -> Result<(), String> {
    let rustlib = sysroot.join("lib").join("rustlib");
    let marker = rustlib.join(format!("{}.unpacked", a.triple));
    if marker.is_file() {
        return Ok(());
    }
    let debs = sysroot.with_file_name("debs");
    std::fs::create_dir_all(&debs).map_err(|e| format!("cannot create {}: {e}", debs.display()))?;
    let spec = format!("libstd-rust-web-dev:{}={version}", a.deb);
    // apt-get download drops privileges to _apt unless told otherwise; our folder is ours.
    let download = || {
        quiet(
            "apt-get",
            &["download", "-qq", "-o", "APT::Sandbox::User=root", &spec],
            Some(&debs),
        )
    };
    if let Err(e) = download() {
        if lists_fresh {
            return Err(e);
        }
        // A package list older than the mirror names files the mirror no longer has.
        apt_update()?;
        download()?;
    }
    let deb = std::fs::read_dir(&debs)
        .map_err(|e| format!("cannot read {}: {e}", debs.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with("libstd-rust-web-dev_")
                && n.ends_with(&format!("_{}.deb", a.deb))
                && n.contains(upstream(version))
        })
        .ok_or_else(|| format!("apt-get download {spec} left no .deb in {}", debs.display()))?;
    let unpacked = debs.join(format!("unpacked-{}", a.deb));
    if unpacked.exists() {
        std::fs::remove_dir_all(&unpacked)
            .map_err(|e| format!("cannot remove {}: {e}", unpacked.display()))?;
    }
    quiet(
        "dpkg-deb",
        &["-x", &deb.to_string_lossy(), &unpacked.to_string_lossy()],
        None,
    )?;
    let from = unpacked.join("usr/lib/rustlib").join(a.triple);
    if !from.join("lib").is_dir() {
        return Err(format!(
            "{} has no usr/lib/rustlib/{}/lib",
            deb.display(),
            a.triple
        ));
    }
    let to = rustlib.join(a.triple);
    if to.exists() {
        std::fs::remove_dir_all(&to).map_err(|e| format!("cannot remove {}: {e}", to.display()))?;
    }
    std::fs::create_dir_all(&rustlib)
        .map_err(|e| format!("cannot create {}: {e}", rustlib.display()))?;
    std::fs::rename(&from, &to)
        .map_err(|e| format!("cannot move {} to {}: {e}", from.display(), to.display()))?;
    std::fs::remove_dir_all(&unpacked)
        .map_err(|e| format!("cannot remove {}: {e}", unpacked.display()))?;
    std::fs::write(&marker, format!("{spec}\n"))
        .map_err(|e| format!("cannot write {}: {e}", marker.display()))?;
    Ok(())
}

/// The installed `/usr/bin/rustc` must be the chosen version (the unpacked standard
/// libraries only fit the compiler they were built with).
fn check_compiler(version: &str) -> Result<(), String> {
    let v = capture("/usr/bin/rustc", &["--version"])?;
    let want = format!("rustc {} ", upstream(version));
    if v.starts_with(&want) {
        Ok(())
    } else {
        Err(format!(
            "/usr/bin/rustc says {:?}, expected rustc-web {version}",
            v.trim()
        ))
    }
}

/// `cargo build --release -p xtask --target ...` with Debian's cargo and rustc, statically
/// linked by the cross gcc, against the unpacked standard libraries.
fn build(arches: &[&Arch], sysroot: &Path, target_dir: &Path) -> Result<(), String> {
    let mut cmd = Command::new("/usr/bin/cargo");
    cmd.args(["build", "--release", "--locked", "-p", "xtask"]);
    for a in arches {
        cmd.args(["--target", a.triple]);
    }
    cmd.current_dir(crate::workspace_root())
        .stdin(Stdio::null());
    // What the outer `cargo xtask` (rustup's cargo) put in the environment is not for
    // Debian's cargo.
    for k in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
        "RUSTUP_TOOLCHAIN",
        "CARGO",
    ] {
        cmd.env_remove(k);
    }
    cmd.env("RUSTC", "/usr/bin/rustc")
        .env("RUSTDOC", "/usr/bin/rustdoc")
        .env("CARGO_TARGET_DIR", target_dir)
        // Debug info only costs link time here; the code is the same.
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0");
    let sysroot = sysroot.to_string_lossy();
    for a in arches {
        let key = a.triple.to_uppercase().replace('-', "_");
        cmd.env(
            format!("CARGO_TARGET_{key}_LINKER"),
            format!("{}-gcc", a.gnu),
        )
        .env(
            format!("CARGO_TARGET_{key}_RUSTFLAGS"),
            format!("-C target-feature=+crt-static --sysroot {sysroot}"),
        );
    }
    eprintln!(
        "$ /usr/bin/cargo build --release --locked -p xtask {}",
        arches
            .iter()
            .map(|a| format!("--target {}", a.triple))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run /usr/bin/cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "building the runner with Debian's cargo and rustc failed ({status})"
        ))
    }
}

/// What an ELF file says about itself.
#[derive(Debug, PartialEq, Eq)]
struct ElfFacts {
    machine: u16,
    big_endian: bool,
    /// Has a `PT_INTERP` program header (is dynamically linked).
    interpreter: bool,
}

/// Reads the ELF header and program headers (32 or 64 bit, either byte order).
fn elf_facts(b: &[u8]) -> Result<ElfFacts, String> {
    let field = |at: usize, len: usize, what: &str| -> Result<&[u8], String> {
        at.checked_add(len)
            .and_then(|end| b.get(at..end))
            .ok_or_else(|| {
                format!(
                    "ELF {what} at byte {at} lies past the end ({} bytes)",
                    b.len()
                )
            })
    };
    if field(0, 4, "magic")? != b"\x7fELF" {
        return Err("not an ELF file (magic)".into());
    }
    let wide = match field(4, 1, "class")?[0] {
        1 => false,
        2 => true,
        c => return Err(format!("ELF class {c} is neither 32 nor 64 bit")),
    };
    let big_endian = match field(5, 1, "data encoding")?[0] {
        1 => false,
        2 => true,
        d => {
            return Err(format!(
                "ELF data encoding {d} is neither little nor big endian"
            ))
        }
    };
    let uint = |at: usize, len: usize, what: &str| -> Result<u64, String> {
        let bytes = field(at, len, what)?;
        let mut v = 0u64;
        for i in 0..len {
            let byte = if big_endian {
                bytes[i]
            } else {
                bytes[len - 1 - i]
            };
            v = (v << 8) | u64::from(byte);
        }
        Ok(v)
    };
    let machine = uint(18, 2, "machine")? as u16;
    let (phoff, phentsize, phnum) = if wide {
        (
            uint(32, 8, "program header offset")?,
            uint(54, 2, "program header size")?,
            uint(56, 2, "program header count")?,
        )
    } else {
        (
            uint(28, 4, "program header offset")?,
            uint(42, 2, "program header size")?,
            uint(44, 2, "program header count")?,
        )
    };
    let mut interpreter = false;
    for i in 0..phnum {
        let at = i
            .checked_mul(phentsize)
            .and_then(|o| o.checked_add(phoff))
            .and_then(|o| usize::try_from(o).ok())
            .ok_or_else(|| format!("ELF program header {i} offset overflows"))?;
        const PT_INTERP: u64 = 3;
        if uint(at, 4, "program header type")? == PT_INTERP {
            interpreter = true;
        }
    }
    Ok(ElfFacts {
        machine,
        big_endian,
        interpreter,
    })
}

/// The runner must be a static program of the architecture: a host binary would "pass"
/// without emulation, and a dynamic one can hang under qemu-user.
fn check_binary(a: &Arch, bin: &Path) -> Result<(), String> {
    let bytes = std::fs::read(bin).map_err(|e| format!("cannot read {}: {e}", bin.display()))?;
    let f = elf_facts(&bytes).map_err(|e| format!("{}: {e}", bin.display()))?;
    if f.machine != a.elf_machine || f.big_endian != a.big_endian {
        return Err(format!(
            "{} is for ELF machine {} ({} endian), not {} (machine {})",
            bin.display(),
            f.machine,
            if f.big_endian { "big" } else { "little" },
            a.name,
            a.elf_machine
        ));
    }
    if f.interpreter {
        return Err(format!(
            "{} is dynamically linked (has a program interpreter); the runner must be static",
            bin.display()
        ));
    }
    Ok(())
}

enum Outcome {
    Equal,
    Differs(String),
}

/// Runs `hash-matrix --only <scenario>` under qemu, its output to `log`.
fn run_scenario(qemu: &Path, bin: &Path, scenario: &str, log: &Path) -> Result<Outcome, String> {
    let file =
        std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("cannot reopen {}: {e}", log.display()))?;
    let qemu = qemu.display();
    let mut child = Command::new(qemu.to_string())
        .arg(bin)
        .args(["hash-matrix", "--only", scenario])
        .current_dir(crate::workspace_root())
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run {qemu}: {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child
            .try_wait()
            .map_err(|e| format!("waiting for {qemu}: {e}"))?
        {
            break s;
        }
        if start.elapsed() > SCENARIO_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Outcome::Differs(format!(
                "no answer within {} s under {qemu} (hung?); log {}",
                SCENARIO_DEADLINE.as_secs(),
                log.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let ok_line = format!("hash-matrix: ok {scenario} (");
    if status.success() && text.lines().any(|l| l.starts_with(&ok_line)) {
        return Ok(Outcome::Equal);
    }
    let said: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("FAIL") || l.contains("difference") || l.starts_with("xtask:"))
        .collect();
    Ok(Outcome::Differs(format!(
        "{status}: {} (log {})",
        if said.is_empty() {
            "no hash-matrix verdict".to_string()
        } else {
            said.join(" / ")
        },
        log.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn arch_list_is_parsed_in_order_without_repeats() {
        let (got, qemu) = parse_args(&args(&["--arch", "s390x,aarch64,s390x"])).unwrap();
        assert_eq!(qemu, None);
        let names: Vec<_> = got.iter().map(|a| a.name).collect();
        assert_eq!(names, ["s390x", "aarch64"]);
        let (all, _) = parse_args(&[]).unwrap();
        assert_eq!(all.len(), ARCHES.len());
        let (_, qemu) = parse_args(&args(&["--qemu", "/opt/q"])).unwrap();
        assert_eq!(qemu, Some(PathBuf::from("/opt/q")));
        let e = qemu_program(&ARCHES[2], Some(Path::new("/nonexistent"))).unwrap_err();
        assert!(e.contains("--qemu /nonexistent"), "{e}");
        let e = qemu_program(&ARCHES[2], Some(Path::new("/"))).unwrap_err();
        assert!(e.contains("qemu-s390x-static nor qemu-s390x"), "{e}");
    }

    #[test]
    fn unknown_arch_is_named_with_the_known_ones() {
        let e = parse_args(&args(&["--arch", "aarch64,mips"])).unwrap_err();
        assert!(e.contains("\"mips\"") && e.contains("i686"), "{e}");
        let e = parse_args(&args(&["--arch"])).unwrap_err();
        assert!(e.contains("--arch needs"), "{e}");
        let e = parse_args(&args(&["--bless"])).unwrap_err();
        assert!(e.contains("\"--bless\""), "{e}");
    }

    #[test]
    fn madison_versions_are_read_from_the_second_column() {
        let out = " rustc-web | 1.96.0+dfsg1-1~deb12u2 | http://x bookworm-security/main amd64 Packages\n \
                   rustc-web | 1.85.0+dfsg3-1~deb12u3 | http://x bookworm/main amd64 Packages\n";
        assert_eq!(
            parse_madison(out),
            ["1.96.0+dfsg1-1~deb12u2", "1.85.0+dfsg3-1~deb12u3"]
        );
        assert!(parse_madison("").is_empty());
    }

    #[test]
    fn the_newest_version_every_list_offers_is_chosen() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // Plain string order stands in for Debian's here.
        let newer = |a: &str, b: &str| a > b;
        let host = l(&["1.96", "1.85"]);
        let arm = l(&["1.96", "1.85"]);
        let s390x = l(&["1.85"]);
        assert_eq!(
            newest_common(&[host.clone(), arm.clone()], newer).as_deref(),
            Some("1.96")
        );
        assert_eq!(
            newest_common(&[host.clone(), arm, s390x], newer).as_deref(),
            Some("1.85")
        );
        assert_eq!(newest_common(&[host, l(&["1.70"])], newer), None);
    }

    #[test]
    fn upstream_version_drops_the_debian_suffixes() {
        assert_eq!(upstream("1.85.0+dfsg3-1~deb12u3"), "1.85.0");
        assert_eq!(upstream("1.96.0"), "1.96.0");
    }

    #[test]
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    fn this_test_program_reads_as_a_dynamic_x86_64_elf() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let f = elf_facts(&me).unwrap();
        assert_eq!(f.machine, 62);
        assert!(!f.big_endian);
        // The test harness is linked dynamically (the default on linux-gnu).
        assert!(f.interpreter);
    }

    /// A 32-bit big-endian ELF header with one program header of type `p_type`.
    fn elf32_be(machine: u16, p_type: u32) -> Vec<u8> {
        let mut b = vec![0u8; 52 + 32];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 1; // 32 bit
        b[5] = 2; // big endian
        b[18..20].copy_from_slice(&machine.to_be_bytes());
        b[28..32].copy_from_slice(&52u32.to_be_bytes()); // e_phoff
        b[42..44].copy_from_slice(&32u16.to_be_bytes()); // e_phentsize
        b[44..46].copy_from_slice(&1u16.to_be_bytes()); // e_phnum
        b[52..56].copy_from_slice(&p_type.to_be_bytes());
        b
    }

    #[test]
    fn big_endian_static_and_dynamic_headers_are_told_apart() {
        let load = elf_facts(&elf32_be(22, 1)).unwrap();
        assert_eq!(
            load,
            ElfFacts {
                machine: 22,
                big_endian: true,
                interpreter: false
            }
        );
        assert!(elf_facts(&elf32_be(22, 3)).unwrap().interpreter);
    }

    #[test]
    fn truncated_or_foreign_files_are_errors_naming_the_field() {
        let full = elf32_be(22, 1);
        let e = elf_facts(&full[..54]).unwrap_err();
        assert!(e.contains("program header type"), "{e}");
        let e = elf_facts(&full[..10]).unwrap_err();
        assert!(e.contains("machine"), "{e}");
        let e = elf_facts(b"#!/bin/sh\n").unwrap_err();
        assert!(e.contains("magic"), "{e}");
        // Every prefix is an error or a result, never a panic.
        for n in 0..full.len() {
            let _ = elf_facts(&full[..n]);
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn a_host_binary_is_refused_as_the_aarch64_runner() {
        let me = std::env::current_exe().unwrap();
        let e = check_binary(&ARCHES[0], &me).unwrap_err();
        assert!(e.contains("not aarch64"), "{e}");
    }
}
