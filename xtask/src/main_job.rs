//! The README's main-job command as a CI step: read from `README.md` (the line after
//! `# main job:`) and run exactly as written, so that a fresh clone keeps doing what the
//! README promises.

use std::process::Command;

/// The first command of the README's set-up block (the line after `# main job:`), as
/// written there.
pub(crate) fn main_job_command(readme: &str) -> Result<String, String> {
    let mut lines = readme.lines().skip_while(|l| !l.starts_with("# main job:"));
    lines.next().ok_or("README.md has no `# main job:` line")?;
    lines
        .next()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .ok_or_else(|| "README.md: no command after `# main job:`".to_string())
}

/// Runs the README's main-job command exactly as written (bash, from the repository root),
/// so that a fresh clone keeps doing what the README promises.
pub(crate) fn run() -> Result<(), String> {
    let root = crate::workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md"))
        .map_err(|e| format!("cannot read README.md: {e}"))?;
    let command = main_job_command(&readme)?;
    eprintln!("$ {command}");
    let status = Command::new("bash")
        .args(["-c", &command])
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "the README's main job failed ({status}): {command}"
        ))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_readme_main_job_bakes_the_shipped_level_and_renders_a_png() {
        let readme = std::fs::read_to_string(crate::workspace_root().join("README.md")).unwrap();
        let command = super::main_job_command(&readme).unwrap();
        assert!(
            command.starts_with("cargo run --release -p onepath-cli -- build levels/"),
            "{command}"
        );
        assert!(command.contains("&& cargo run --release -p onepath-cli -- render "));
        assert!(command.contains(".png"));
        let level = command.split_whitespace().nth(7).unwrap();
        assert!(crate::workspace_root().join(level).is_file(), "{level}");
    }
}
