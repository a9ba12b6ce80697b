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
    /// runs below them (repeatable).
    #[arg(long = "runs", value_name = "DIR", default_value = "data")]
    runs: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    junqi_serve::serve(junqi_serve::ServeOptions { addr: args.addr, runs: args.runs })?;
    Ok(())
}
