//! `junqi import`: text game records (JGN, docs/records.md) back to a
//! `games/` Parquet dataset that `junqi replay` and `junqi export` read.

use anyhow::{anyhow, bail, Context, Result};
use junqi_selfplay::siguo_jgn::{self, SiguoRecordReader};
use junqi_selfplay::{RecordReader, SiguoGame, StoredGame};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

/// `run.json`'s format for an imported dataset. It is not a self-play run:
/// `junqi selfplay --out` refuses to resume into it.
pub const IMPORT_FORMAT: &str = "junqi-import/1";

#[derive(clap::Args)]
pub struct Args {
    /// The records (JGN, docs/records.md); `-` reads standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// A new (or empty) directory for the dataset: DIR/games/shard-*.parquet and DIR/run.json.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Games per shard file, in file order.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    shard_games: u64,
    /// Number the games 0, 1, … in file order instead of keeping their
    /// GameId tags (needed when ids repeat, as in an arena's --pgnout).
    #[arg(long)]
    renumber: bool,
}

pub fn run(args: Args) -> Result<()> {
    junqi_selfplay::limits::in_range("--shard-games", args.shard_games, 1, junqi_selfplay::limits::MAX_GAMES)
        .map_err(anyhow::Error::msg)?;
    let stdin = args.file.as_os_str() == "-";
    let source = if stdin { "stdin".to_string() } else { args.file.display().to_string() };
    let input: Box<dyn BufRead> = if stdin {
        Box::new(std::io::stdin().lock())
    } else {
        // A regular file only: a device such as /dev/zero is refused, not read forever.
        let meta = std::fs::metadata(&args.file).with_context(|| format!("cannot read {source}"))?;
        if !meta.is_file() {
            bail!("{source}: not a regular file");
        }
        let file = std::fs::File::open(&args.file).with_context(|| format!("cannot read {source}"))?;
        Box::new(std::io::BufReader::new(file))
    };
    let _run_dir = junqi_selfplay::RunDir::open(&args.out)?;
    let taken = std::fs::read_dir(&args.out)
        .with_context(|| format!("cannot read {}", args.out.display()))?
        .flatten()
        .any(|e| e.file_name() != junqi_selfplay::LOCK_FILE);
    if taken {
        bail!("{} is not empty; import into a new directory", args.out.display());
    }
    let games_dir = args.out.join(junqi_selfplay::GAMES_DIR);
    std::fs::create_dir_all(&games_dir).with_context(|| format!("cannot create {}", games_dir.display()))?;
    let imported = peek_four_player(input).and_then(|(four, input)| {
        if four {
            import_siguo(input, &source, &args, &games_dir)
        } else {
            import(input, &source, &args, &games_dir)
        }
    });
    let (games, shards) = match imported {
        Ok(counts) => counts,
        Err(e) => {
            // Nothing half done stays behind: the directory is as it was.
            let _ = std::fs::remove_dir_all(&games_dir);
            return Err(e);
        }
    };
    println!(
        "imported {games} game(s) from {source} into {} ({shards} shard(s)); `junqi replay --games {}` re-plays them",
        games_dir.display(),
        args.out.display()
    );
    Ok(())
}

/// Is the first record a four-player one (`[Game "siguo"]` among its tags)?
/// Its lines are read ahead and handed back in front of the rest.
fn peek_four_player(mut input: Box<dyn BufRead>) -> Result<(bool, Box<dyn BufRead>)> {
    let mut ahead: Vec<u8> = Vec::new();
    let mut four = false;
    for _ in 0..1000 {
        let start = ahead.len();
        let limit = junqi_selfplay::MAX_LINE_BYTES as u64 + 2;
        let n = std::io::Read::take(&mut input, limit).read_until(b'\n', &mut ahead)?;
        let line = String::from_utf8_lossy(&ahead[start..]);
        let line = line.trim_start_matches('\u{feff}').trim();
        if n == 0 || !(line.is_empty() || line.starts_with('[')) || n as u64 == limit {
            break;
        }
        four |= siguo_jgn::starts_four_player([line]);
    }
    Ok((four, Box::new(std::io::Cursor::new(ahead).chain(input))))
}

/// [`import`] for four-player records: a four-player (`junqi-siguo-games/1`)
/// dataset, each shard's forfeits in its footer.
fn import_siguo(input: Box<dyn BufRead>, source: &str, args: &Args, games_dir: &Path) -> Result<(u64, u64)> {
    let mut reader = SiguoRecordReader::new(input);
    let mut seen: HashMap<u64, u64> = HashMap::new();
    let mut batch: Vec<SiguoGame> = Vec::new();
    let mut forfeits: BTreeMap<u64, String> = BTreeMap::new();
    let (mut games, mut shards) = (0u64, 0u64);
    let flush = |batch: &mut Vec<SiguoGame>, forfeits: &mut BTreeMap<u64, String>, shards: &mut u64| -> Result<()> {
        let mut metadata = vec![
            ("junqi.import".to_string(), source.to_string()),
            ("junqi.code_version".to_string(), junqi_selfplay::code_version()),
            ("junqi.shard".to_string(), shards.to_string()),
            ("junqi.games".to_string(), batch.len().to_string()),
        ];
        if !forfeits.is_empty() {
            metadata.push(siguo_jgn::forfeits_footer(forfeits));
        }
        junqi_selfplay::write_siguo_games_shard(games_dir, *shards, batch, &metadata)?;
        *shards += 1;
        batch.clear();
        forfeits.clear();
        Ok(())
    };
    while let Some(record) = reader.next_record().map_err(|e| anyhow!("{source}: {e}"))? {
        let mut game = record.game;
        if args.renumber {
            game.game_id = games;
        } else if let Some(first) = seen.insert(game.game_id, record.line) {
            bail!(
                "{source}: line {}: record {}: game id {} is also the id of the game at line {first}; pass --renumber \
                 to number the games 0, 1, … in file order",
                record.line,
                record.number,
                game.game_id
            );
        }
        if let Some(reason) = record.forfeit {
            forfeits.insert(game.game_id, reason);
        }
        batch.push(game);
        games += 1;
        if batch.len() as u64 == args.shard_games {
            flush(&mut batch, &mut forfeits, &mut shards)?;
        }
    }
    if games == 0 {
        bail!("{source} holds no game records");
    }
    if !batch.is_empty() {
        flush(&mut batch, &mut forfeits, &mut shards)?;
    }
    write_run_file(source, args, games, Some(junqi_selfplay::SIGUO_GAMES_FORMAT))?;
    Ok((games, shards))
}

/// Read every record and write the shards, then `run.json`. Returns the
/// games and shards written.
fn import(input: Box<dyn BufRead>, source: &str, args: &Args, games_dir: &Path) -> Result<(u64, u64)> {
    let mut reader = RecordReader::new(input);
    let mut seen: HashMap<u64, u64> = HashMap::new();
    let mut batch: Vec<StoredGame> = Vec::new();
    let (mut games, mut shards) = (0u64, 0u64);
    let flush = |batch: &mut Vec<StoredGame>, shards: &mut u64| -> Result<()> {
        let metadata = [
            ("junqi.import".to_string(), source.to_string()),
            ("junqi.code_version".to_string(), junqi_selfplay::code_version()),
            ("junqi.shard".to_string(), shards.to_string()),
            ("junqi.games".to_string(), batch.len().to_string()),
        ];
        junqi_selfplay::write_games_shard(games_dir, *shards, batch, &metadata)?;
        *shards += 1;
        batch.clear();
        Ok(())
    };
    // A four-player record among two-player ones: its number, as the
    // four-player reader's errors give.
    let mixed = |e: junqi_selfplay::RecordError, games: u64| {
        if e.message == siguo_jgn::MIXED_FOUR_IN_TWO {
            anyhow!("{source}: line {}: record {}: {}", e.line, games + 1, e.message)
        } else {
            anyhow!("{source}: {e}")
        }
    };
    while let Some(record) = reader.next_record().map_err(|e| mixed(e, games))? {
        let mut game = record.game;
        if args.renumber {
            game.game_id = games;
        } else if let Some(first) = seen.insert(game.game_id, record.line) {
            bail!(
                "{source}: line {}: game id {} is also the id of the game at line {first}; pass --renumber to \
                 number the games 0, 1, … in file order",
                record.line,
                game.game_id
            );
        }
        batch.push(game);
        games += 1;
        if batch.len() as u64 == args.shard_games {
            flush(&mut batch, &mut shards)?;
        }
    }
    if games == 0 {
        bail!("{source} holds no game records");
    }
    if !batch.is_empty() {
        flush(&mut batch, &mut shards)?;
    }
    write_run_file(source, args, games, None)?;
    Ok((games, shards))
}

/// `run.json` of an import; a four-player one also names its games' schema
/// (`"games_format": "junqi-siguo-games/1"`).
fn write_run_file(source: &str, args: &Args, games: u64, games_format: Option<&str>) -> Result<()> {
    let mut run = serde_json::json!({
        "format": IMPORT_FORMAT,
        "source": source,
        "games": games,
        "shard_games": args.shard_games,
        "renumbered": args.renumber,
        "code_version": junqi_selfplay::code_version(),
        "checksums": junqi_selfplay::CHECKSUM_EXT,
    });
    if let Some(f) = games_format {
        run["games_format"] = serde_json::Value::String(f.to_string());
    }
    let path = args.out.join(junqi_selfplay::RUN_FILE);
    let text = serde_json::to_string_pretty(&run)? + "\n";
    junqi_core::write_atomic(&path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
