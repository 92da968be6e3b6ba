//! The command's errors: one line naming the file, field, line or value, and the exit code
//! that goes with each kind.

use std::fmt;
use std::path::Path;

/// Exit code of a successful run.
pub const EXIT_OK: u8 = 0;
/// Exit code of a bad input: a file that cannot be read, is not what it should be, or holds
/// a value out of range (the message names which).
pub const EXIT_INPUT: u8 = 1;
/// Exit code of a command line that does not parse (clap's own code).
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a check that ran and said no: `verify` found bytes that are not canonical,
/// `path` / `grid` found no path.
pub const EXIT_NEGATIVE: u8 = 3;
/// Exit code of an output that could not be written.
pub const EXIT_OUTPUT: u8 = 4;

/// What went wrong, in words a user understands, and the exit code it maps to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// The exit code ([`EXIT_INPUT`], [`EXIT_USAGE`], [`EXIT_OUTPUT`]).
    pub code: u8,
    /// One line: what, where, why.
    pub message: String,
}

impl CliError {
    /// A bad input.
    pub fn input(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_INPUT,
            message: message.into(),
        }
    }

    /// A bad input in `path`.
    pub fn in_file(path: &Path, message: impl fmt::Display) -> Self {
        Self::input(format!("{}: {message}", path.display()))
    }

    /// An argument that parses but cannot be used (a layer that does not exist, ...).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }

    /// An output that cannot be written.
    pub fn output(path: &Path, err: impl fmt::Display) -> Self {
        CliError {
            code: EXIT_OUTPUT,
            message: format!("cannot write {}: {err}", path.display()),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// Reads a whole file; the error names the path and the operating system's reason.
pub fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::in_file(path, format!("cannot read: {e}")))
}

/// Writes a whole file, creating its folder if needed; the error names the path.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| CliError::output(path, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| CliError::output(path, e))
}
