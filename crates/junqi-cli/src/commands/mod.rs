pub mod apply;
pub mod arena;
pub mod bench;
pub mod bench_net;
pub mod engine;
pub mod engine_check;
#[cfg(feature = "torch")]
pub mod exploit;
pub mod export;
pub mod import;
pub mod merge;
pub mod moves;
pub mod perft;
pub mod play;
pub mod random_game;
pub mod reanalyse;
pub mod regress;
pub mod replay;
pub mod selfplay;
pub mod serve;
pub mod show;
pub mod siguo_board;
pub mod siguo_play;
pub mod sign_net;
pub mod sprt;
pub mod study;
#[cfg(feature = "torch")]
pub mod train;
#[cfg(feature = "torch")]
pub mod training_loop;

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
    let mut input = std::io::stdin().lock();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&bytes);
        let line = line.strip_suffix('\n').unwrap_or(&line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let answered = match std::str::from_utf8(&bytes) {
            Ok(_) => answer(line),
            Err(_) => Err(anyhow::anyhow!("input line is not valid UTF-8")),
        };
        match answered {
            Ok(text) => writeln!(out, "{text}")?,
            Err(e) => {
                failed = true;
                writeln!(out, "error: {}{error_tail}", crate::one_line(&format!("{e:#}")))?;
            }
        }
    }
    out.flush()?;
    if failed {
        return Err(AlreadyReported.into());
    }
    Ok(())
}
