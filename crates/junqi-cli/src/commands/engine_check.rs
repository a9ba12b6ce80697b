//! `junqi engine-check -- PROGRAM ARGS`: the engine protocol's conformance
//! suite run against any engine (docs/protocol.md, "Checking an engine").

use crate::CheckFailed;
use anyhow::Result;
use junqi_engine::check::Suites;
use std::io::Write;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Milliseconds the engine may take for each answer.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Run only the two-player (2) or the four-player (4) suite; by default
    /// every suite the engine's `plays` lines announce.
    #[arg(long, value_parser = ["2", "4"])]
    players: Option<String>,
    /// The engine's program and its arguments, after `--`.
    #[arg(required = true, last = true, value_name = "PROGRAM ARGS")]
    command: Vec<String>,
}

pub fn run(args: Args) -> Result<()> {
    let (program, rest) = args.command.split_first().expect("clap requires the command");
    let suites = match args.players.as_deref() {
        Some("2") => Suites::TwoPlayer,
        Some(_) => Suites::FourPlayer,
        None => Suites::Announced,
    };
    let steps = junqi_engine::check::check_engine(program, rest, Duration::from_millis(args.timeout), suites);
    let mut out = std::io::stdout().lock();
    for step in &steps {
        writeln!(out, "{step}")?;
    }
    if steps.iter().any(|s| s.failure.is_some()) {
        writeln!(out, "the engine does not follow docs/protocol.md")?;
        return Err(CheckFailed.into());
    }
    writeln!(out, "the engine passed every check")?;
    Ok(())
}
