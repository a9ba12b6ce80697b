//! `junqi serve`: watch, replay and play in the browser (crates/junqi-serve).

use anyhow::Result;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The address to listen on (127.0.0.1 keeps it on this machine; port 0
    /// picks a free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
    addr: SocketAddr,
    /// Directories whose runs are shown: self-play, arena, study and loop
    /// runs below them (repeatable; default: `data` when there is one).
    #[arg(long = "runs", value_name = "DIR")]
    runs: Vec<PathBuf>,
    /// Offer `engine:cmd=…` bots on the play page (they start programs on
    /// this machine, named by whoever uses the page).
    #[arg(long)]
    allow_engines: bool,
    /// A clock for the built-in search bots of every game: BASE seconds for
    /// the game plus INC a move (`60+0.5`), kept per game as the spec key
    /// `tc` keeps it; a bot spec with its own `movetime` or `tc` keeps it,
    /// bots without a time notion are unaffected; the four-player `mcts`
    /// plays each move by this clock's budget. In a two-player game on a
    /// clock the person plays on the same one (the page shows both; a side
    /// whose time runs out loses on time).
    #[arg(long, value_name = "BASE+INC")]
    tc: Option<String>,
}

pub fn run(args: Args) -> Result<()> {
    let runs = match args.runs {
        runs if !runs.is_empty() => runs,
        _ if std::path::Path::new("data").is_dir() => vec![PathBuf::from("data")],
        _ => {
            eprintln!("note: no --runs directory (and no ./data): the replay page shows the sample games");
            vec![]
        }
    };
    junqi_serve::serve(junqi_serve::ServeOptions {
        addr: args.addr,
        runs,
        allow_engines: args.allow_engines,
        tc: args.tc,
    })?;
    Ok(())
}
