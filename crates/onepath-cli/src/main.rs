//! `onepath`: the command-line front of OnePath (see the `onepath_cli` library docs for the
//! subcommands and the exit codes).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = onepath_cli::cli::Cli::parse();
    match onepath_cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("onepath: {e}");
            ExitCode::from(e.code)
        }
    }
}
