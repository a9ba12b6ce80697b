//! `junqi export`: the games of a `games/` dataset as text game records
//! (JGN, PGN-like; see docs/records.md).

use anyhow::{anyhow, bail, Context, Result};
use junqi_selfplay::siguo_jgn;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The text formats `export` writes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// PGN-like game records (docs/records.md).
    Jgn,
}

#[derive(clap::Args)]
pub struct Args {
    /// The text format.
    #[arg(long, value_enum, default_value = "jgn")]
    format: Format,
    /// A directory holding games/ (a self-play run, an arena's matchup, an
    /// import), or the games/ folder itself.
    #[arg(long, value_name = "DIR")]
    games: PathBuf,
    /// Only this game id.
    #[arg(long, value_name = "ID")]
    game: Option<u64>,
    /// Write to FILE (atomically: the whole text or nothing) instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let Format::Jgn = args.format;
    match &args.out {
        None => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            write_records(&args.games, None, args.game, &mut out)?;
            out.flush()?;
        }
        Some(path) => {
            let n = write_atomically(path, |w| write_records(&args.games, None, args.game, w))?;
            eprintln!("exported {n} game(s) to {}", path.display());
        }
    }
    Ok(())
}

/// Write the record of every game of the dataset in `dir` (shard by shard,
/// rows in order; only game `only` when given) to `out`, each with `event`
/// as its `Event` tag: two-player records, or four-player ones for a
/// four-player dataset. Returns the number of games written.
pub fn write_records(dir: &Path, event: Option<&str>, only: Option<u64>, out: &mut dyn Write) -> Result<u64> {
    let games = junqi_selfplay::games_dir(dir);
    let files = junqi_selfplay::shard_files(&games)?;
    if files.is_empty() {
        bail!("{} holds no games shards (shard-*.parquet)", games.display());
    }
    let (mut n, mut text) = (0, String::new());
    // The schema of the dataset, told by its first shard's footer (as
    // `junqi replay` tells them apart); every shard must be of it.
    let four = siguo_jgn::is_siguo_games_file(&files[0])?;
    if four {
        n = write_siguo_records(&files, event, only, out)?;
    }
    for path in files.iter().filter(|_| !four) {
        for g in junqi_selfplay::read_games_file(path)? {
            if only.is_some_and(|id| id != g.game_id) {
                continue;
            }
            text.clear();
            junqi_selfplay::write_record(&mut text, &g, event).map_err(|why| {
                anyhow!("{}: game {}: {why}, so it cannot be written as a record", path.display(), g.game_id)
            })?;
            out.write_all(text.as_bytes())?;
            n += 1;
        }
    }
    if let (Some(id), 0) = (only, n) {
        bail!("game {id} is not in {}", games.display());
    }
    Ok(n)
}

/// [`write_records`] for a four-player (`junqi-siguo-games/1`) dataset:
/// each game with its footer's forfeit reason, if any.
fn write_siguo_records(files: &[PathBuf], event: Option<&str>, only: Option<u64>, out: &mut dyn Write) -> Result<u64> {
    let (mut n, mut text) = (0, String::new());
    for path in files {
        if !siguo_jgn::is_siguo_games_file(path)? {
            bail!("{}: a two-player games shard in a four-player dataset", path.display());
        }
        let forfeits = siguo_jgn::read_siguo_forfeits(path)?;
        for g in junqi_selfplay::read_siguo_games_file(path)? {
            if only.is_some_and(|id| id != g.game_id) {
                continue;
            }
            text.clear();
            let forfeit = forfeits.get(&g.game_id).map(String::as_str);
            siguo_jgn::write_siguo_record(&mut text, &g, event, forfeit).map_err(|why| {
                anyhow!("{}: game {}: {why}, so it cannot be written as a record", path.display(), g.game_id)
            })?;
            out.write_all(text.as_bytes())?;
            n += 1;
        }
    }
    Ok(n)
}

/// Write `path` atomically (`junqi_core::write_atomic_with`): a reader only
/// ever finds the old file or the whole new one. Errors name the file.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut dyn Write) -> Result<u64>) -> Result<u64> {
    junqi_core::write_atomic_with(path, |w| write(w)).with_context(|| format!("exporting to {}", path.display()))
}
