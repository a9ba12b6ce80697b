pub mod apply;
pub mod bench;
pub mod moves;
pub mod perft;
pub mod random_game;
pub mod show;

use crate::AlreadyReported;
use anyhow::Result;
use std::io::{BufRead, Write};

/// Answer each stdin line with `answer` (its output lines, without the final
/// newline). A line that fails is answered with `error: <message>` followed by
/// `error_tail` (so outputs stay aligned with inputs), and once every line is
/// done the command fails with exit code 2.
pub fn answer_stdin_lines(mut answer: impl FnMut(&str) -> Result<String>, error_tail: &str) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut failed = false;
    for line in std::io::stdin().lock().lines() {
        match answer(&line?) {
            Ok(text) => writeln!(out, "{text}")?,
            Err(e) => {
                failed = true;
                writeln!(out, "error: {e:#}{error_tail}")?;
            }
        }
    }
    out.flush()?;
    if failed {
        return Err(AlreadyReported.into());
    }
    Ok(())
}
